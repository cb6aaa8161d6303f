package dedup

import "github.com/kmeta-dev/kmeta/btf"

// Full signatures filter the candidates that deep signatures cannot tell
// apart because a FWD may stand for a struct somewhere (issue 37: an
// anonymous FWD union as the member of an anonymous struct makes every
// union referred to by a struct a leaf of the deep signatures, and the
// chain of nested records is compared as libbpf does, cubic in its
// length).
//
// The full signature of a type hashes its graph as deep signatures do
// (deepSig with deepSigs.full), but follows every struct and union (but
// those of the triples fullCollapse collapses, below), and is deepNone
// where the graph reaches a cycle, or a FWD through a type of a kind that
// also refers to a struct or union of the FWD's name and class (an unsafe
// FWD, unless its triple is collapsed; safe ones are leaves, their class
// and name, as in deep signatures): such a type is never filtered by it.
// A FWD itself has none. A type "has" a full signature when it is not
// deepNone (full signatures are odd).
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

// fullCompare reports whether the full signatures of a and b are both
// known and differ (differ), so that comparing them must fail, or are
// both known and equal with no triple collapsed (same).
//
// In the second case exact depths (exact.go) can tell a and b apart only
// where the signatures collide: H_r, at any depth r, unfolds the graph
// that a full signature hashes whole (FWDs, enums, arrays, INTs and
// FLOATs are leaves in both, the other kinds followed, but a collapsed
// triple's structs, which are leaves here and not there).
func (d *state) fullCompare(a, b uint32) (differ, same bool) {
	f := &d.full
	if !f.on {
		d.fullInit()
	}
	if f.broken {
		return false, false
	}
	x, y := d.deepSig(&f.sigs, a), d.deepSig(&f.sigs, b)
	if !hasFull(x) || !hasFull(y) {
		return false, false
	}
	return x != y, x == y && len(f.sigs.collapse) == 0
}

// fullInit starts the filter: it checks the invariant on the classes of
// every own type linked so far (base types link only FWDs, which have no
// full signature).
func (d *state) fullInit() {
	f := &d.full
	f.on = true
	d.deepInit()
	f.sigs = deepSigs{full: true, base: map[uint32]uint32{}, fwds: d.referred(false)}
	f.sigs.collapse = d.fullCollapse(d.deep.fwds, f.sigs.fwds)
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
// invariants of full signatures and exact depths once they filter.
func (d *state) link(id, v uint32) {
	if f := &d.full; f.on && !f.broken && id != v && v <= maxID {
		d.fullJoin(id, d.resolve(v))
	}
	if e := &d.exact; e.built && !e.off && !e.broken && id != v && v <= maxID {
		d.exactJoin(id, d.resolve(v))
	}
	if id != v {
		d.failForget()
	}
	d.set(id, v)
}

func (f *fullSigs) free() {
	*f = fullSigs{}
}

// Choosing the unsafe FWDs that full signatures take as leaves.
//
// Call a triple the kind of a referring type, a class and a name, and the
// triple unsafe where both a FWD and a struct or union of it are referred
// to by a type of that kind. Each unsafe triple can be treated in one of
// two ways, both sound, and each triple independently of the others:
// expanded (its structs and unions hashed with their members, its FWDs
// making their referrers deepNone, as full signatures do), or collapsed
// (its FWDs and its structs and unions leaves, class and name, as deep
// signatures do). The argument above covers a pair of a collapsed triple
// as deep.go's covers it: the comparison pairs the types that two paired
// types of one kind refer to, so a struct of a collapsed triple meets a
// FWD or struct of the same triple (the names and classes must agree) or
// a type the comparison refuses, and both sides are the same leaf; the
// types of one class share their class and name, so a pair of one class
// is the same leaf too. Nothing else changes: a FWD of an expanded
// triple still leaves its referrers without a full signature, a safe FWD
// is still a leaf, and the invariant of classes is checked as before.
//
// Expanding a triple costs every type that reaches one of its FWDs its
// full signature; collapsing it costs the types that reach one of its
// structs some of their detail. fullCollapse collapses a triple when
// fewer types reach its structs than its FWDs (a FWD at the bottom of a
// long chain, a struct that few types refer to), counted over the
// reversed graph within a budget of visits proportional to the types;
// past the budget, triples are expanded.
//
// fullCollapse returns the collapsed triples: names, with a bit per
// referring kind and class (fwdBit).
func (d *state) fullCollapse(fwds, structs map[uint32]uint64) map[uint32]uint64 {
	unsafe := map[uint32]uint64{}
	for name, b := range fwds {
		if u := b & structs[name]; u != 0 {
			unsafe[name] = u
		}
	}
	if len(unsafe) == 0 {
		return nil
	}
	g := d.reverseGraph(unsafe)
	out := map[uint32]uint64{}
	for _, t := range g.triples {
		aFwd := g.ancestors(t.fwd, g.budget)
		if g.ancestors(t.structs, aFwd) < aFwd {
			out[t.name] |= t.bit
		}
	}
	return out
}

// revGraph is the reversed graph of the types, base and own, by dense
// index (revGraph.dense), with the referrers of every unsafe triple.
type revGraph struct {
	d       *state
	start   []uint32 // the referrers of dense index i: from[start[i]:start[i+1]]
	from    []uint32
	triples []revTriple
	// seen marks a dense index visited by the search stamped so.
	seen   []uint32
	stamp  uint32
	queue  []uint32
	budget int // visits left
}

type revTriple struct {
	name         uint32
	bit          uint64
	fwd, structs []uint32 // the referrers, by dense index
}

func (d *state) dense(id uint32) uint32 {
	if id <= d.blast {
		return id
	}
	return id - d.first + d.blast + 1
}

// forRefs calls fn with each type, its record and each valid type id it
// refers to, base types first.
func (d *state) forRefs(fn func(id uint32, r record, c uint32)) {
	for id := uint32(1); id < d.first+d.n(); id++ {
		if id > d.blast && id < d.first {
			id = d.first
		}
		r := d.rec(id)
		for k := range numRefs(r) {
			if c := r[refAt(r, k)]; c != 0 && c < d.first+d.n() && (c <= d.blast || c >= d.first) {
				fn(id, r, c)
			}
		}
	}
}

// reverseGraph builds the reversed graph and the unsafe triples'
// referrers.
func (d *state) reverseGraph(unsafe map[uint32]uint64) *revGraph {
	size := d.blast + 1 + d.n()
	g := &revGraph{d: d, start: make([]uint32, size+1), seen: make([]uint32, size)}
	g.budget = 4*int(size) + 1<<16
	type key struct {
		name uint32
		bit  uint64
	}
	at := map[key]int{}
	d.forRefs(func(id uint32, r record, c uint32) {
		g.start[d.dense(c)+1]++
		ck := d.kt.of(c)
		if ck != btf.KindForward && ck != btf.KindStruct && ck != btf.KindUnion {
			return
		}
		cr := d.rec(c)
		class := ck
		if ck == btf.KindForward {
			class = fwdKind(cr)
		}
		b := fwdBit(kindOf(r), class)
		if unsafe[cr[wName]]&b == 0 {
			return
		}
		i, ok := at[key{cr[wName], b}]
		if !ok {
			i = len(g.triples)
			at[key{cr[wName], b}] = i
			g.triples = append(g.triples, revTriple{name: cr[wName], bit: b})
		}
		if t := &g.triples[i]; ck == btf.KindForward {
			t.fwd = append(t.fwd, d.dense(id))
		} else {
			t.structs = append(t.structs, d.dense(id))
		}
	})
	for i := 1; i < len(g.start); i++ {
		g.start[i] += g.start[i-1]
	}
	g.from = make([]uint32, g.start[size])
	fill := append([]uint32(nil), g.start[:size]...)
	d.forRefs(func(id uint32, _ record, c uint32) {
		dc := d.dense(c)
		g.from[fill[dc]] = d.dense(id)
		fill[dc]++
	})
	return g
}

// ancestors counts the types that reach one of starts (starts included),
// up to limit, within the budget of visits: past it, limit.
func (g *revGraph) ancestors(starts []uint32, limit int) int {
	g.stamp++
	g.queue = g.queue[:0]
	for _, s := range starts {
		if g.seen[s] != g.stamp {
			g.seen[s] = g.stamp
			g.queue = append(g.queue, s)
		}
	}
	for i := 0; i < len(g.queue) && len(g.queue) < limit; i++ {
		for _, p := range g.from[g.start[g.queue[i]]:g.start[g.queue[i]+1]] {
			if g.budget--; g.budget < 0 {
				return limit
			}
			if g.seen[p] != g.stamp {
				g.seen[p] = g.stamp
				g.queue = append(g.queue, p)
			}
		}
	}
	return min(len(g.queue), limit)
}
