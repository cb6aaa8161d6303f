package dedup

import (
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Deep signatures let the struct pass skip, in a long candidate list,
// the candidates whose graph comparison must fail however deep the
// difference lies (issue 37: N anonymous records, each the only member
// of the next, all of one shallow hash and one top signature; libbpf
// compares each with every one before it, down to the bottom, which is
// cubic in N).
//
// The deep signature of a type hashes what btf_dedup_is_equiv checks on
// the whole of its graph, following references through the kinds the
// comparison descends, and stopping where equivalence may hold without
// equality, as the signatures of sig.go do: at a FWD, an ENUM or ENUM64
// (class and name, if an enum declaration, vlen 0, has its name; any other
// enum whole: compatEnum finds it equivalent only to its equal, and the
// enum pass resolves a definition only to an equal one), an ARRAY (its own words: the comparison on a conflict
// of the hypothetical map, btf_dedup_identical_types, looks no further),
// and at a STRUCT or UNION of a name that a FWD of its class declares (a
// FWD and its struct are equivalent), where that FWD is referred to by a
// type of the same kind as the one that refers to the struct here. The
// comparison reaches a FWD only through a reference, and pairs the types
// two paired types refer to, which are of one kind: so where one side of
// a pair is a FWD and the other its struct, the struct is a leaf there
// too. Other structs and unions are hashed with their members (and so is
// the struct a deep signature is asked for, which is compared with
// structs only). A type whose graph, so followed, reaches a cycle has no
// deep signature but is told apart by cycle.go (deepCyc).
//
// Why skipping is safe: every way the comparison can succeed links types
// of equal deep signatures. Equal shallow words and names are hashed;
// leaves are hashed by what equivalence keeps; two types that resolve to
// one canonical type were linked by an earlier success (or by the
// primitive pass, which links equal INTs, FLOATs and FWDs, and enums of
// one name); a pair the hypothetical map already holds was, or is being,
// compared, and the conflict check (identical) succeeds only on graphs
// that are equal as deep signatures see them; a cycle, which lets the
// comparison assume success, makes the signature deepNone on both sides,
// since the comparison walks both graphs in step. So a comparison between
// types of different deep signatures, both known, fails, and a failed
// comparison leaves no trace.
//
// They are computed only once the struct pass has spent deepBudget steps
// of graph comparisons that failed, so that real BTF, whose comparisons
// mostly succeed and whose failures are shallow, pays nothing (the
// 1,121 Debian 6.1 modules merged spend 662 steps); from then on every candidate is
// filtered, each type's signature computed once. The budget is the
// number of types if that is less (but not below deepBudgetFloor): the
// filters' setup costs a few thousand instructions a type, as much as a
// few steps each, while a comparison's steps cost as much as libbpf's
// (issue 37's wide record of 16,383 identical 16-deep anonymous chains,
// 262,146 types, spent 1,048,579 steps before the filters started, half
// of its struct pass; BENCH.md).
const (
	deepBudget      = 1 << 20
	deepBudgetFloor = 1 << 16
)

// Deep signature values besides the signatures themselves, which are odd
// (sigClean).
const (
	deepNone = 2 // reaches a kind that is never compared
	deepGrey = 4 // being computed
	deepCyc  = 6 // reaches a cycle: see cycle.go
)

// deepOpen is a bit of every deep signature: set where the graph it
// hashes reaches a FWD, or a struct or union taken as a leaf (a name a FWD
// declares), the only places where full signatures (full.go) follow the
// graph otherwise; clear where it reaches neither. Equal graphs set it
// alike, so it is part of the signature and sound with it. Two types of
// one closed signature have one full signature too, full signatures
// hashing enums more coarsely and nothing more finely there: deepDiffer
// asks no full signature of them. (The wide records of issue 37, 16-deep
// anonymous chains with no FWD, spent a fifth of their deduplication on
// full signatures that told nothing apart; BENCH.md.)
const deepOpen = 2

// deepClosed and deepOpened give a leaf's signature v the deepOpen bit.
func deepClosed(v uint32) uint32 { return v &^ deepOpen }
func deepOpened(v uint32) uint32 { return v | deepOpen }

// deepSigs remembers the deep signatures of one struct pass.
type deepSigs struct {
	// full makes them full signatures (full.go): every struct and union
	// is hashed with its members, and a FWD is a leaf only where no
	// struct or union of its name and class is referred to by a type of
	// its referrer's kind (fwds holds those names then), and makes its
	// referrer deepNone elsewhere.
	full bool
	own  []uint32          // by own index; 0: not computed
	base map[uint32]uint32 // by base id
	// fwds holds the names that a referenced FWD declares, a bit per
	// kind of the referring type and class (fwdBit), from the base and
	// the own types.
	fwds map[uint32]uint64
	// collapse holds, for full signatures, the names and bits (fwdBit) of
	// the unsafe FWDs whose structs and unions are leaves too, as in deep
	// signatures (full.go: fullCollapse).
	collapse map[uint32]uint64
	// enumDecls holds the names of the enum declarations (vlen 0), base
	// and own: an enum of another name is equivalent only to its equal
	// (compatEnum), so deep signatures hash it whole.
	enumDecls map[uint32]bool
	stack     stack[deepFrame]
	cyc       cycSigs // the types that reach a cycle
}

type deepFrame struct {
	id   uint32
	next uint32 // index of the next reference to look at
	cyc  bool   // a reference reaches a cycle
	open uint32 // deepOpen if a reference before next is open
	h    uint64 // the hash of the record and the references before next
}

func (s *deepSigs) free() {
	*s = deepSigs{}
}

// deepInit collects the FWD names, once per pass.
func (d *state) deepInit() {
	s := &d.deep
	if s.fwds != nil {
		return
	}
	s.fwds = d.referred(true)
	s.enumDecls = d.enumDecls()
	s.own = make([]uint32, d.n())
	s.base = map[uint32]uint32{}
}

// referred returns the names of the referenced FWDs (fwd) or structs and
// unions (!fwd), base and own, each with a bit per kind of the referring
// type and class (fwdBit).
//
// The kinds say, without reading a record, that there is nothing to
// find (no FWD: issue 37's wide records of anonymous chains) and which
// types refer to nothing.
func (d *state) referred(fwd bool) map[uint32]uint64 {
	names := map[uint32]uint64{}
	want := func(k btf.Kind) bool {
		return fwd && k == btf.KindForward || !fwd && (k == btf.KindStruct || k == btf.KindUnion)
	}
	kinds := [2][]uint8{d.kt.base, d.kt.own[:d.n()]}
	if !slices.ContainsFunc(kinds[0], func(k uint8) bool { return want(btf.Kind(k)) }) &&
		!slices.ContainsFunc(kinds[1], func(k uint8) bool { return want(btf.Kind(k)) }) {
		return names
	}
	for id := uint32(1); id < d.first+d.n(); id++ {
		if id > d.blast && id < d.first {
			id = d.first
		}
		if !hasRefs(d.kt.of(id)) {
			continue
		}
		r := d.rec(id)
		for k := range numRefs(r) {
			c := r[refAt(r, k)]
			if c == 0 || c >= d.first+d.n() {
				continue
			}
			switch ck := d.kt.of(c); {
			case fwd && ck == btf.KindForward:
				f := d.rec(c)
				names[f[wName]] |= fwdBit(kindOf(r), fwdKind(f))
			case !fwd && (ck == btf.KindStruct || ck == btf.KindUnion):
				names[d.rec(c)[wName]] |= fwdBit(kindOf(r), ck)
			}
		}
	}
	return names
}

// enumDecls returns the names of the enum declarations, base and own.
func (d *state) enumDecls() map[uint32]bool {
	names := map[uint32]bool{}
	for id := uint32(1); id < d.first+d.n(); id++ {
		if id > d.blast && id < d.first {
			id = d.first
		}
		if k := d.kt.of(id); k == btf.KindEnum || k == btf.KindEnum64 {
			if r := d.rec(id); isEnumFwd(r) {
				names[r[wName]] = true
			}
		}
	}
	return names
}

// deepTop is the kind deepLeaf is given for the type a deep signature is
// asked for, which no type refers to there.
const deepTop btf.Kind = 31

// fwdBit is the bit of fwds for a FWD, or a struct or union, of class k
// referred to by a type of kind from.
func fwdBit(from, k btf.Kind) uint64 {
	b := uint64(1) << (2 * (uint(from) % 32))
	if k == btf.KindUnion {
		b <<= 1
	}
	return b
}

// deepDiffer reports whether the deep signatures of a and b are both known
// and differ, so that comparing them must fail.
func (d *state) deepDiffer(a, b uint32) bool {
	// Exact depths first, once built and with no refinement due: an O(1)
	// look that tells apart most of a bucket that deep signatures cannot
	// (records linked by pointers), without reading them. Each filter is
	// sound alone, so the order changes no result.
	if e := &d.exact; e.built && !e.off && !e.broken && (e.complete || d.failSteps < e.next) && !e.agree(d.dense(a), d.dense(b)) {
		return true
	}
	d.deepInit()
	x, y := d.deepSig(&d.deep, a), d.deepSig(&d.deep, b)
	switch {
	case x == deepNone || y == deepNone:
	case x != deepCyc || y != deepCyc:
		if x != y {
			return true
		}
	default:
		// Refined only when asked: on a split deduplication whose
		// types embed a vmlinux struct that reaches a cycle, the
		// refinement of the thousands of base types it reaches cost
		// a quarter of the struct pass, for pairs of which neither is
		// deepCyc (issue 37's wide records on the Debian 6.1 vmlinux).
		d.cycRefine()
		if gx, gy := d.cycGet(a), d.cycGet(b); gx != 0 && gy != 0 && gx != gy {
			return true
		}
	}
	differ, same := false, true
	if x&deepOpen != 0 || !deepKnown(x) || !deepKnown(y) {
		// Here x == y if both are known (deepOpen).
		if differ, same = d.fullCompare(a, b); differ {
			return true
		}
	}
	// Where full signatures agree, exact depths are asked only once
	// comparisons of such pairs have failed for deepBudget steps: they
	// agree but by a collision of hashes, which a chain longer than
	// about 2^16 makes certain (its signatures, each a hash of the one
	// below, cycle), and building exact depths costs several arrays of
	// every type (N identical chains under one struct, issue 37's wide
	// records of deep anonymous chains: 17 MB of scratch and a sixth of
	// the CPU, to skip nothing).
	if d.sameFull = same; same && d.sameFailSteps <= d.deepBudget {
		return false
	}
	return d.exactDiffer(a, b)
}

func (d *state) deepGet(s *deepSigs, id uint32) uint32 {
	if id > d.blast {
		return s.own[id-d.first]
	}
	return s.base[id]
}

func (d *state) deepPut(s *deepSigs, id, v uint32) {
	if id > d.blast {
		s.own[id-d.first] = v
	} else {
		s.base[id] = v
	}
}

// deepLeaf returns the deep signature (in s) of a type, referred to by a
// type of kind from, that the signature does not follow further, or 0 if
// it does.
func (d *state) deepLeaf(s *deepSigs, from btf.Kind, id uint32) uint32 {
	if id == 0 {
		return sigVoid
	}
	// The kind first: the types followed are most of those met, and
	// need no record read here (only a struct's name, when some FWD
	// may stand for it).
	k := d.kt.of(id)
	switch k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPointer,
		btf.KindTypedef, btf.KindFunc, btf.KindTypeTag, btf.KindFuncProto:
		return 0
	case btf.KindStruct, btf.KindUnion:
		m := s.fwds
		if s.full {
			m = s.collapse
		}
		if len(m) == 0 {
			return 0
		}
		if r := d.rec(id); m[r[wName]]&fwdBit(from, k) != 0 {
			return deepOpened(sigOf(r, 0, nil))
		}
		return 0
	}
	r := d.rec(id)
	switch k {
	case btf.KindInt, btf.KindFloat:
		return deepClosed(sigClean(hashAll(r)))
	case btf.KindForward:
		if s.full && from == deepTop {
			return deepNone
		}
		if b := fwdBit(from, fwdKind(r)); s.full && s.fwds[r[wName]]&b != 0 && s.collapse[r[wName]]&b == 0 {
			return deepNone // it may stand for a struct there
		}
		return deepOpened(sigOf(r, 0, nil)) // class and name
	case btf.KindEnum, btf.KindEnum64:
		if !s.full && vlenOf(r) > 0 && !s.enumDecls[r[wName]] {
			return deepClosed(sigClean(mix(hashAll(r), 0xe7e7)))
		}
		return deepClosed(sigOf(r, 0, nil)) // class and name
	case btf.KindArray:
		return deepClosed(sigClean(mix(hashShallow(r), 0xa77a)))
	}
	return deepNone
}

// deepSig returns the deep signature (in s) of type id, computing with an
// explicit stack what it has not yet, depth first.
func (d *state) deepSig(s *deepSigs, id uint32) uint32 {
	// A signature computed is looked up before the record is read: the
	// struct pass asks each candidate's several times. Only types that
	// are no leaf at the top (deepTop) have one, since no type of kind
	// deepTop refers to a struct, so the order changes no value.
	if id != 0 {
		if v := d.deepGet(s, id); v != 0 && v != deepGrey {
			return v
		}
	}
	if v := d.deepLeaf(s, deepTop, id); v != 0 {
		return v
	}
	if v := d.deepGet(s, id); v != 0 {
		return v
	}
	st := &s.stack
	st.push(deepFrame{id: id})
	d.deepPut(s, id, deepGrey)
	for st.n > 0 {
		f := st.top()
		r := d.rec(f.id)
		n := uint32(numRefs(r))
		if f.next == 0 && f.h == 0 {
			f.h = mix(hashShallow(r), 0xdee9)
		}
		// Each reference's signature is hashed as it is found, in
		// order: a leaf's at once, another's when known, after its
		// walk if it was not.
		pushed := false
		for ; f.next < n; f.next++ {
			c := r[refAt(r, int(f.next))]
			v := d.deepLeaf(s, kindOf(r), c)
			if v == 0 {
				if v = d.deepGet(s, c); v == 0 {
					d.deepPut(s, c, deepGrey)
					st.push(deepFrame{id: c})
					pushed = true
					break
				}
			}
			if v == deepNone {
				break
			}
			if v == deepGrey || v == deepCyc { // reaches a cycle
				f.cyc = true
				continue
			}
			f.h = mix(f.h, v)
			f.open |= v & deepOpen
		}
		if pushed {
			continue
		}
		v := uint32(deepNone)
		switch {
		case f.next < n:
		case f.cyc && s.full: // full signatures do without cycles
		case f.cyc:
			v = deepCyc
			s.cyc.ids = append(s.cyc.ids, f.id)
		default:
			v = deepClosed(sigClean(f.h)) | f.open
		}
		d.deepPut(s, f.id, v)
		st.pop()
	}
	return d.deepGet(s, id)
}

// hasRefs reports whether a record of kind k may hold type ids.
func hasRefs(k btf.Kind) bool {
	s := &wire.Shapes[k].W
	return s.Ref0 >= 0 || s.Ref1 >= 0 || s.ElemRef >= 0
}

// numRefs returns how many type ids record r holds: those of its fixed
// part, then one per element.
func numRefs(r record) int {
	s := r.Shape()
	n := 0
	if s.Ref0 >= 0 {
		n++
	}
	if s.Ref1 >= 0 {
		n++
	}
	if s.ElemRef >= 0 {
		n += (len(r) - s.Fixed) / s.Elem
	}
	return n
}

// refAt returns the word index of the k-th type id of r (numRefs).
func refAt(r record, k int) int {
	s := r.Shape()
	if s.Ref0 >= 0 {
		if k == 0 {
			return s.Ref0
		}
		k--
	}
	if s.Ref1 >= 0 {
		if k == 0 {
			return s.Ref1
		}
		k--
	}
	return s.Fixed + k*s.Elem + s.ElemRef
}
