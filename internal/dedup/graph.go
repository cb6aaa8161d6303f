package dedup

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// structType deduplicates a STRUCT, UNION or TYPEDEF by comparing its type
// graph with those of the candidates (btf_dedup_struct_type).
func (d *state) structType(id uint32) {
	if d.mapped(id) || d.stopped() {
		return
	}
	r := d.rec(id)
	switch kindOf(r) {
	case btf.KindStruct, btf.KindUnion:
	case btf.KindTypedef:
		if d.compat == CompatLibbpf11 { // a reference type there (refType)
			return
		}
	default:
		return
	}
	if d.faithful {
		d.faithfulStruct(id, r)
		return
	}
	if d.deepOn && !d.dix.on {
		d.deepIndexOn()
	}
	sh := hashShallow(r)
	if d.lazyTops() && !d.dix.on && !d.tab.underHolds(sh) {
		if done := d.structLone(id, r, sh); done {
			return
		}
	}
	k := d.structKeyOf(r, id, sh)
	d.splitLone(sh)
	newID := id
	// Two loops, not one over a chosen iterator: the table's own
	// iterator is inlined into its loop only when ranged over directly.
	if d.dix.on {
		for c := range d.structCands(id, k) {
			if st := d.structStep(id, r, c); st != stepNext {
				if st == stepStop {
					return
				}
				newID = c
				break
			}
		}
	} else {
		for c := range d.tab.candidates(k) {
			if st := d.structStep(id, r, c); st != stepNext {
				if st == stepStop {
					return
				}
				newID = c
				break
			}
		}
	}
	d.link(id, newID)
	if newID == id {
		d.tab.add(k.h, id)
		if d.dix.on {
			d.deepAdd(k.h)
		}
	}
}

// lazyTops reports whether the struct pass files a type under its
// shallow hash alone while no other of that hash is filed (structLone):
// not once a pipeline filed types under their full keys.
func (d *state) lazyTops() bool { return d.pipe == nil && d.tab.fz == nil }

// structLone deduplicates STRUCT, UNION or TYPEDEF id, record r, of
// shallow hash sh, if the own table holds at most one type of sh and the
// base none (libbpf's chain of sh has at most one candidate), without
// its top signature, and reports whether it did. A type filed first
// under sh is kept there, alone; a second one that is not equivalent to
// it splits sh (splitLone): both are then filed under their full keys,
// as every later type of sh, and the candidates are filtered by top
// signature again (BENCH.md, "Top signatures only to split chains").
func (d *state) structLone(id uint32, r record, sh uint64) bool {
	head := d.tab.ownHead(sh)
	switch {
	case head == 0:
		d.link(id, id)
		d.tab.add(sh, id)
		return true
	case head == splitChain:
		return false
	}
	c := d.tab.ents[head-1].id
	switch d.structStep(id, r, c) {
	case stepStop:
		return true
	case stepMatch:
		d.link(id, c)
		return true
	}
	d.splitLone(sh)
	k := d.structKeyOf(r, id, sh)
	d.link(id, id)
	d.tab.add(k.h, id)
	return true
}

// splitLone files the type kept alone under shallow hash sh, if any,
// under its full key, with its place in libbpf's order, and marks sh as
// split.
func (d *state) splitLone(sh uint64) {
	if !d.lazyTops() {
		return
	}
	if head := d.tab.ownHead(sh); head > 0 {
		c := d.tab.ents[head-1].id
		d.tab.split(sh, head, mix(sh, d.topSig(c)))
	}
}

// What structStep found of a candidate.
const (
	stepNext  = iota // not equivalent: the next candidate
	stepMatch        // equivalent: the type's canonical type
	stepStop         // stopped (an error, or the context)
)

// structStep compares type id, whose record is r, with candidate c.
func (d *state) structStep(id uint32, r record, c uint32) int {
	// Shallow equality first, so that a FWD with the same hash is
	// never picked (a FWD and its struct are "equivalent").
	if !equalShallow(r, d.rec(c)) {
		return stepNext
	}
	d.sameFull = false
	// The failed pairs first: a run of them moves on only when its head
	// is asked (failmemo.go), so a skip by signature must not hide it.
	if d.failedBefore(id, c) || d.deepOn && d.deepDiffer(id, c) {
		// Skipped candidates look at the context too, counted across
		// types: a pass may skip millions without a comparison step
		// (TestExactCancel).
		if d.skips++; d.skips%stopEvery == 0 && d.canceled() {
			return stepStop
		}
		return stepNext
	}
	if d.stopped() {
		return stepStop
	}
	d.clearHypot()
	start := d.ticks
	eq := d.isEquiv(id, c)
	if eq < 0 {
		return stepStop
	}
	if eq == 0 {
		d.failSteps += uint64(d.ticks - start)
		if d.sameFull {
			d.sameFailSteps += uint64(d.ticks - start)
		}
		d.deepOn = d.failSteps > d.deepBudget
		d.fails.on = d.fails.armed && d.failSteps > d.failBudget
		return stepNext
	}
	d.mergeHypot()
	if d.adjust { // not really equivalent
		return stepNext
	}
	return stepMatch
}

func (d *state) clearHypot() {
	for _, id := range d.hlist {
		d.setHypot(id, unprocessed)
	}
	d.hlist = d.hlist[:0]
	d.adjust = false
}

func (d *state) hypotAdd(canon, cand uint32) {
	d.hlist = append(d.hlist, canon)
	d.setHypot(canon, cand)
}

// isEquiv compares the graph of cand with that of canon
// (btf_dedup_is_equiv): 1 if equivalent, 0 if not, -1 on error (d.err).
//
// libbpf recurses, and so did this function, refusing graphs nested
// deeper than a constant (issue 37: a ring of 100,000 structs each
// holding the next, which libbpf deduplicates). The comparison is a
// conjunction that stops at the first pair that fails, and what a pair
// does (equivPair: the hypothetical map, the adjust flag, the context)
// depends only on what the pairs before it did, in the recursion's
// pre-order. So a stack of the pairs still to compare, each pair's
// references pushed in reverse when it is compared, meets the same pairs
// in the same order, with the same effects, and holds only the pairs
// not yet compared: as many as the records on the path have references
// left, bounded by the input, and one for a chain of any length.
func (d *state) isEquiv(cand, canon uint32) int {
	st := append(d.eqStack[:0], eqPair{cand, canon})
	f := &d.fails
	f.hits = 0
	for len(st) > 0 {
		p := st[len(st)-1]
		st = st[:len(st)-1]
		if f.on {
			d.failEnter(p, len(st))
		}
		var eq int
		if st, eq = d.equivPair(st, p.cand, p.canon); eq <= 0 {
			d.eqStack = st[:0]
			if eq == 0 && f.on {
				d.failed(eqPair{cand, canon})
			}
			f.path = f.path[:0]
			return eq
		}
	}
	d.eqStack = st
	f.path = f.path[:0]
	return 1
}

// eqPair is a pair of types that isEquiv has still to compare.
type eqPair struct{ cand, canon uint32 }

// equivPair compares cand with canon as one step of libbpf's recursion:
// 1 if the pair holds so far, its references pushed on st (the last to be
// compared first), 0 if not, -1 on error (d.err).
func (d *state) equivPair(st []eqPair, cand, canon uint32) ([]eqPair, int) {
	if d.resolve(cand) == d.resolve(canon) {
		return st, 1
	}
	canon = d.resolveFwd(canon)
	if hv := d.hypot(canon); hv <= maxID {
		d.fails.hits++
		if hv == cand || d.sameOnConflict(hv, cand) {
			return st, 1
		}
		return st, 0
	}
	d.hypotAdd(canon, cand)
	ct := d.rec(cand)
	nt, ntypes := d.recOrCompact(canon)
	ck, nk := kindOf(ct), kindOf(nt)
	if ct[wName] != nt[wName] {
		return st, 0
	}
	if (ck == btf.KindForward || nk == btf.KindForward) && ck != nk {
		var real, fk btf.Kind
		if ck == btf.KindForward {
			real, fk = nk, fwdKind(ct)
		} else {
			real, fk = ck, fwdKind(nt)
			if fk == real && canon <= d.blast {
				d.adjust = true // a base FWD would have to resolve
			}
		}
		return st, b2i(fk == real)
	}
	if ck != nk {
		return st, 0
	}
	if d.stopped() {
		return st, -1
	}
	switch ck {
	case btf.KindInt, btf.KindForward, btf.KindFloat:
		return st, b2i(equalAll(ct, nt))
	case btf.KindEnum, btf.KindEnum64:
		return st, b2i(compatEnum(ct, nt))
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPointer,
		btf.KindTypedef, btf.KindFunc, btf.KindTypeTag:
		if ct[wInfo] != nt[wInfo] {
			return st, 0
		}
		return append(st, eqPair{ct[wSize], nt[wSize]}), 1
	case btf.KindArray, btf.KindStruct, btf.KindUnion, btf.KindFuncProto:
		if !equalShallow(ct, nt) {
			return st, 0
		}
		return pushRefs(st, ct, nt, ntypes), 1
	}
	if oddKind(ck) { // never equal: cand and canon resolve apart
		d.errorf("type graphs reach %v [%d] and %v [%d] of one name, which libbpf cannot compare", ck, min(cand, canon), ck, max(cand, canon))
	} else {
		d.errorf("cannot compare %v [%d] in a type graph", ck, cand)
	}
	return st, -1
}

// pushRefs pushes on st the referenced types of two shallow-equal records
// so that they are popped in libbpf's order: an array's index type before
// its element type, a prototype's return type before its parameters,
// members in order. ntypes, if not nil, holds nt's member types (a
// compacted record, see recOrCompact).
func pushRefs(st []eqPair, ct, nt, ntypes record) []eqPair {
	s := ct.Shape()
	if ntypes != nil {
		for k, i := len(ntypes)-1, s.Fixed+s.ElemRef+(len(ntypes)-1)*s.Elem; k >= 0; k, i = k-1, i-s.Elem {
			st = append(st, eqPair{ct[i], ntypes[k]})
		}
		return st
	}
	if s.ElemRef >= 0 {
		for i := len(ct) - s.Elem + s.ElemRef; i >= s.Fixed; i -= s.Elem {
			st = append(st, eqPair{ct[i], nt[i]})
		}
	}
	if s.Ref0 >= 0 {
		st = append(st, eqPair{ct[s.Ref0], nt[s.Ref0]})
	}
	if s.Ref1 >= 0 {
		st = append(st, eqPair{ct[s.Ref1], nt[s.Ref1]})
	}
	return st
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// identical is btf_dedup_identical_types: a structural comparison, to a
// limited depth, of two candidate types that the hypothetical map would
// otherwise call different.
func (d *state) identical(id1, id2 uint32, depth int) bool {
	// libbpf follows reference chains without decrementing depth; a chain
	// longer than the BTF is a cycle there (an endless loop), false here.
	for steps := uint32(0); steps <= d.first+d.n(); steps++ {
		t1, t2 := d.rec(id1), d.rec(id2)
		if depth <= 0 {
			return false
		}
		k := kindOf(t1)
		if k != kindOf(t2) {
			return false
		}
		switch k {
		case btf.KindUnknown:
			return true
		case btf.KindInt, btf.KindForward, btf.KindFloat:
			return equalAll(t1, t2)
		case btf.KindEnum, btf.KindEnum64:
			return compatEnum(t1, t2)
		case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPointer,
			btf.KindTypedef, btf.KindFunc, btf.KindTypeTag:
			if t1[wInfo] != t2[wInfo] || t1[wName] != t2[wName] {
				return false
			}
			id1, id2 = t1[wSize], t2[wSize]
			continue
		case btf.KindArray:
			// libbpf compares the first array's element and index
			// types with themselves (a2 = btf_array(t1)), so two
			// shallow-equal arrays are identical.
			return equalShallow(t1, t2)
		case btf.KindStruct, btf.KindUnion, btf.KindFuncProto:
			return equalShallow(t1, t2) && d.identicalRefs(t1, t2, depth)
		}
		return false
	}
	return false
}

func (d *state) identicalRefs(t1, t2 record, depth int) bool {
	s := t1.Shape()
	if s.Ref0 >= 0 && t1[s.Ref0] != t2[s.Ref0] && !d.identical(t1[s.Ref0], t2[s.Ref0], depth-1) {
		return false
	}
	if s.ElemRef >= 0 {
		for i := s.Fixed + s.ElemRef; i < len(t1); i += s.Elem {
			if t1[i] != t2[i] && !d.identical(t1[i], t2[i], depth-1) {
				return false
			}
		}
	}
	return true
}

// mergeHypot records what a successful comparison established
// (btf_dedup_merge_hypot_map): FWDs resolved to structs and unions, and
// candidate structs mapped to canonical ones.
func (d *state) mergeHypot() {
	for _, canon := range d.hlist {
		t := d.resolve(d.hypot(canon))
		c := d.resolve(canon)
		tk, ck := d.kind(t), d.kind(c)
		if tk != btf.KindForward && ck == btf.KindForward {
			d.link(c, t)
		}
		if d.adjust {
			continue
		}
		if tk == btf.KindForward && ck != btf.KindForward {
			d.link(t, c)
		}
		if (tk == btf.KindStruct || tk == btf.KindUnion) && ck != btf.KindForward &&
			d.mapped(c) && !d.mapped(t) {
			d.link(t, c)
		}
	}
}

// resolveFwds maps each remaining FWD to the only canonical struct or
// union of its name, if there is exactly one (btf_dedup_resolve_fwds).
// libbpf indexes every canonical struct and union by name; only the names
// of the FWDs left are looked up, so only those are indexed here (589
// FWDs against 23,642 structs and unions in the Debian 6.1 modules).
func (d *state) resolveFwds() {
	var baseNames map[uint32]uint32
	if d.base != nil {
		baseNames = d.base.names
	}
	isFwd := func(i int, k uint8) bool {
		return btf.Kind(k) == btf.KindForward && d.m[i] == d.first+uint32(i)
	}
	n := 0
	for i, k := range d.kt.own[:d.n()] {
		if isFwd(i, k) {
			n++
		}
	}
	if n == 0 {
		return
	}
	var mem *mmap.Region
	defer mmap.Free(&mem)
	own := newFwdNames(n, &mem) // FWD name -> its struct or union, 0 if none or several
	for i, k := range d.kt.own[:d.n()] {
		if isFwd(i, k) {
			own.add(d.recs.rec(uint32(i))[wName])
		}
	}
	for i, k := range d.kt.own[:d.n()] {
		if btf.Kind(k) != btf.KindStruct && btf.Kind(k) != btf.KindUnion || d.m[i] != d.first+uint32(i) {
			continue
		}
		name := d.recs.rec(uint32(i))[wName]
		e := own.find(name)
		if e == nil {
			continue
		}
		if _, ok := baseNames[name]; ok || e.seen {
			e.cand = 0 // ambiguous
		} else {
			e.cand = d.first + uint32(i)
		}
		e.seen = true
	}
	for i, k := range d.kt.own[:d.n()] {
		if !isFwd(i, k) {
			continue
		}
		r := d.recs.rec(uint32(i))
		e := own.find(r[wName])
		c := e.cand
		if !e.seen {
			c = baseNames[r[wName]]
		}
		if c == 0 || d.kind(c) != fwdKind(r) {
			continue
		}
		d.m[i] = c
	}
}

// fwdNames is resolveFwds' index of the names of the FWDs left: open
// addressing in a mapping, at most 3/4 full, given back when the pass
// ends. Go maps of those names took 3.4 MB of heap for red team 10's
// fwd-storm-30000 (60,000 FWDs of 30,000 names), at the run's peak, and
// their pages stayed with the heap after it.
type fwdNames struct{ slots []fwdName }

// fwdName is the entry of a name: the one canonical struct or union of
// that name (0: none, or several) and whether one was seen.
type fwdName struct {
	name, cand uint32
	used, seen bool
}

// newFwdNames returns an index for at most n names, in *mem.
func newFwdNames(n int, mem **mmap.Region) fwdNames {
	size := 64
	for 3*size < 4*n {
		size *= 2
	}
	return fwdNames{slots: makePopulated[fwdName](size, mem)}
}

// slot returns the entry of name, or the empty one where it belongs.
func (f fwdNames) slot(name uint32) *fwdName {
	mask := uint32(len(f.slots) - 1)
	i := uint32(uint64(name)*0x9e3779b97f4a7c15>>32) & mask
	for f.slots[i].used && f.slots[i].name != name {
		i = (i + 1) & mask
	}
	return &f.slots[i]
}

// add indexes name, if it is not yet.
func (f fwdNames) add(name uint32) {
	if e := f.slot(name); !e.used {
		*e = fwdName{name: name, used: true}
	}
}

// find returns the entry of name, nil if it is not indexed.
func (f fwdNames) find(name uint32) *fwdName {
	if e := f.slot(name); e.used {
		return e
	}
	return nil
}
