package dedup

// Full signatures filter the candidates that deep signatures cannot tell
// apart because a FWD may stand for a struct somewhere (issue 37: an
// anonymous FWD union as the member of an anonymous struct makes every
// union referred to by a struct a leaf of the deep signatures, and the
// chain of nested records is compared as libbpf does, cubic in its
// length).
//
// The full signature of a type hashes its graph as deep signatures do
// (deepSig with deepSigs.full), but follows every struct and union, and
// is deepNone where the graph reaches a cycle, or a FWD through a type of
// a kind that also refers to a struct or union of the FWD's name and
// class (an unsafe FWD; safe ones are leaves, their class and name, as in
// deep signatures): such a type is never filtered by it. A FWD itself has
// none. A type "has" a full signature when it is not deepNone (full
// signatures are odd).
//
// Why skipping is safe. Call the types that resolve to one type a class.
// Suppose every class's types that have full signatures have equal ones
// (the invariant). Then, in a comparison that succeeds, every pair (x, y)
// it meets where both have full signatures has equal ones, by induction
// on the height of y's graph (it has no cycle). The comparison pairs the
// types that two paired types of one kind refer to, so a safe FWD on one
// side meets, on the other, a type that a type of the same kind refers to:
// not a struct or union of its name and class (then the FWD would not be
// safe), so a FWD of its name and class, as the leaves hash, or a type the
// comparison refuses; and a FWD that resolves to a struct resolves to one
// of its name and class. Otherwise: x and y of one class have equal full
// signatures by the invariant; y is not a FWD, so the comparison pairs y;
// the first pair of y the comparison descends compares shallow words,
// names, the leaves as deep signatures do, and pairs the references full
// signatures follow, of lower height; a later pair of y with its first
// candidate passes, and one with another x passes only if the conflict
// check (identical) finds x and the first candidate identical, which,
// since it compares kinds strictly and to the end, needs the first
// candidate to have x's full signature. So two types whose full
// signatures differ, both known, cannot be found equivalent while the
// invariant holds, and a failed comparison leaves no trace.
//
// The invariant is checked when the filter starts (fullInit: every class
// of the types so far) and kept at every link the struct pass makes
// (link): merging two classes whose full signatures differ, which a
// success through a FWD may do, stops the filter for the rest of the
// pass (broken); deep signatures still filter then.
type fullSigs struct {
	sigs   deepSigs
	on     bool // fullInit ran
	broken bool // a link joined classes of different full signatures
	// class holds a class's full signature by the id it resolves to,
	// where that type has none or was not looked at.
	class map[uint32]uint32
}

func hasFull(v uint32) bool { return v&1 == 1 }

// fullDiffer reports whether the full signatures of a and b are both
// known and differ, so that comparing them must fail.
func (d *state) fullDiffer(a, b uint32) bool {
	f := &d.full
	if !f.on {
		d.fullInit()
	}
	if f.broken {
		return false
	}
	x, y := d.deepSig(&f.sigs, a), d.deepSig(&f.sigs, b)
	return hasFull(x) && hasFull(y) && x != y
}

// fullInit starts the filter: it checks the invariant on the classes of
// every own type linked so far (base types link only FWDs, which have no
// full signature).
func (d *state) fullInit() {
	f := &d.full
	f.on = true
	f.sigs = deepSigs{full: true, base: map[uint32]uint32{}, fwds: d.referred(false)}
	f.sigs.own = make([]uint32, d.n())
	f.class = map[uint32]uint32{}
	for id := d.first; id < d.first+d.n() && !f.broken; id++ {
		if r := d.resolve(id); r != id {
			d.fullJoin(id, r)
		}
	}
}

// fullClass returns the full signature of the class that resolves to r.
func (d *state) fullClass(r uint32) uint32 {
	if v, ok := d.full.class[r]; ok {
		return v
	}
	return d.deepSig(&d.full.sigs, r)
}

// fullJoin records that a's class joins that of r, a type that resolves
// to itself, and marks the filter broken if their full signatures differ.
func (d *state) fullJoin(a, r uint32) {
	f := &d.full
	va, vr := d.fullClass(a), d.fullClass(r)
	delete(f.class, a)
	switch {
	case !hasFull(va):
	case !hasFull(vr):
		f.class[r] = va
	case va != vr:
		f.broken = true
	}
}

// link maps id, a type that resolves to itself, to v (d.set), keeping the
// invariant of full signatures once they filter.
func (d *state) link(id, v uint32) {
	if f := &d.full; f.on && !f.broken && id != v && v <= maxID {
		d.fullJoin(id, d.resolve(v))
	}
	d.set(id, v)
}

func (f *fullSigs) free() {
	*f = fullSigs{}
}
