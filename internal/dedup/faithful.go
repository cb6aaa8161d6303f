package dedup

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// Faithful mode: libbpf's btf__dedup makes every VAR and DATASEC its own
// canonical type and fails (-EINVAL, btf_dedup_is_equiv's default case)
// when its struct pass compares two distinct VARs, DATASECs or DECL_TAGs
// (the latter not yet deduplicated then) of one kind and name; two of
// different names compare as different, like any other types. Whether
// it meets such a pair depends on which candidates it compares, in which
// order: the first that matches ends the walk. kmeta's shortcuts skip
// comparisons that must fail (signatures, deep filters, the fail memo),
// which is exact only where a failed comparison cannot be an error.
//
// An error needs the pair on both sides of one comparison, and the side
// of the type being deduplicated is read from its records as they are
// (only the candidate's side goes through FWDs resolved). So a type
// whose graph reaches no VAR, DATASEC or DECL_TAG that has a twin (a
// distinct one of its kind and name, reached from some graph) cannot
// make a comparison fail with an error: its candidates may still be
// skipped by top signature. A tainted type, whose graph reaches one,
// compares every shallow-equal candidate in libbpf's order. Both walk
// the chain of the shallow hash alone (libbpf's bucket), so that tainted
// types see every candidate; the deep filters and the fail memo stay off.

// oddKey is the kind and name of a VAR, DATASEC or DECL_TAG.
type oddKey struct {
	kind btf.Kind
	name uint32
}

// checkOdd turns on faithful mode when the types' graphs reach two
// distinct VARs, DATASECs or DECL_TAGs of one kind and name, and marks
// the types whose graphs reach one of them (taint). Without such a
// pair, a comparison reaching those types succeeds exactly for the same
// type and fails without an error otherwise, as for any other kind, and
// the shortcuts stay. It costs nothing unless a type refers to one of
// them (d.odd, b.odd).
func (d *state) checkOdd() {
	baseOdd := d.base != nil && d.base.odd
	if !d.odd.Load() && !baseOdd {
		return
	}
	seen := make(map[oddKey]uint32) // the first id reached, 0 once twinned
	visit := func(r record) {
		if oddKind(kindOf(r)) {
			return
		}
		r.ForRefs(func(j uint32) {
			ref := r[j]
			if !isOddRef(ref, &d.kt) {
				return
			}
			k := oddKey{d.kt.of(ref), d.rec(ref)[wName]}
			if o, ok := seen[k]; !ok {
				seen[k] = ref
			} else if o != ref {
				seen[k] = 0
			}
		})
	}
	if baseOdd {
		for id := uint32(1); id <= d.blast; id++ {
			visit(d.base.rec(id))
		}
	}
	for i := range d.n() {
		visit(d.ownRec(i))
	}
	twinned := func(ref uint32) bool {
		if !isOddRef(ref, &d.kt) {
			return false
		}
		o, ok := seen[oddKey{d.kt.of(ref), d.rec(ref)[wName]}]
		return ok && o == 0
	}
	for _, o := range seen {
		if o == 0 {
			d.faithful = true
			d.deepBudget = ^uint64(0)
			d.taint(twinned)
			return
		}
	}
}

// taint records in d.twinOf, for every type whose graph reaches a type
// that twinned reports (and those types), that type if it is the only
// one, manyTwins otherwise, and in d.fwdIn whether the graph reaches a
// FWD: through the references turned around (one pass to count them, one
// to place them, breadth-first walks), base types included. Records of
// VARs, DATASECs and DECL_TAGs pass nothing on: the comparison never
// follows their references. Both are indexed by id.
func (d *state) taint(twinned func(uint32) bool) {
	n := d.n()
	d.ftop = makeMapped[uint32](int(n), &d.ftopMem)
	const lo = uint32(1) // the ids walked: lo..d.first+n-1
	size := d.first + n - lo
	var startMem, edgeMem *mmap.Region
	defer mmap.Free(&startMem, &edgeMem)
	// start[x+1] counts, then ends, then starts the referrers of lo+x.
	start := makePopulated[uint32](int(size)+2, &startMem)
	d.twinOf = makePopulated[uint32](int(size)+1, &d.taintMem)
	d.fwdIn = makePopulated[uint8](int(size)+1, &d.fwdMem)
	var queue, fwds []uint32
	refs := func(each func(t, ref uint32)) {
		for t := lo; t < d.first+n; t++ {
			r := d.rec(t)
			if oddKind(kindOf(r)) {
				continue
			}
			r.ForRefs(func(j uint32) { each(t, r[j]) })
		}
	}
	refs(func(t, ref uint32) {
		if ref >= lo && ref != 0 {
			start[ref-lo+1]++
		}
		if twinned(ref) && d.twinOf[ref] == 0 {
			d.twinOf[ref] = ref
			queue = append(queue, ref)
		}
	})
	for x := uint32(1); x <= size; x++ {
		start[x] += start[x-1]
	}
	start[size+1] = start[size]
	edges := makeMapped[uint32](int(start[size]), &edgeMem)
	refs(func(t, ref uint32) {
		if ref >= lo && ref != 0 {
			start[ref-lo+1]--
			edges[start[ref-lo+1]] = t
		}
	})
	// Now the referrers of id y are edges[start[y-lo+1]:start[y-lo+2]].
	// A type's value changes at most twice (none, one id, several), so
	// it is queued at most twice.
	for len(queue) > 0 {
		y := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		v := d.twinOf[y]
		for _, t := range edges[start[y-lo+1]:start[y-lo+2]] {
			switch w := d.twinOf[t]; {
			case w == 0:
				d.twinOf[t] = v
			case w != v && w != manyTwins:
				d.twinOf[t] = manyTwins
			default:
				continue
			}
			queue = append(queue, t)
		}
	}
	for id := lo; id < d.first+n; id++ {
		if d.kind(id) == btf.KindForward {
			d.fwdIn[id] = 1
			fwds = append(fwds, id)
		}
	}
	for len(fwds) > 0 {
		y := fwds[len(fwds)-1]
		fwds = fwds[:len(fwds)-1]
		for _, t := range edges[start[y-lo+1]:start[y-lo+2]] {
			if d.fwdIn[t] == 0 {
				d.fwdIn[t] = 1
				fwds = append(fwds, t)
			}
		}
	}
}

// manyTwins is twinOf's value for a type that reaches several twinned
// types.
const manyTwins = ^uint32(0)

// sameTwin reports whether comparing a type that reaches twinned type tw
// alone (twinOf) with candidate c cannot fail with an error: c's graph
// reaches no other twinned type, and no FWD (the comparison follows a
// candidate's FWDs to the structs they resolve to). Every pair of such
// types it may meet is then tw and tw, which holds.
func (d *state) sameTwin(tw, c uint32) bool {
	if tw == manyTwins || d.fwdIn[c] != 0 {
		return false
	}
	v := d.twinOf[c]
	return v == 0 || v == tw
}

// faithfulStruct is structType in faithful mode: the candidates of the
// shallow hash in libbpf's order; for a tainted type every one but those
// failsClean rules out, or, where the comparison cannot meet two
// distinct twinned types (sameTwin), those of its top signature, as for
// an untainted type;
// filed under the shallow hash. Its own loop, as structType has two: the
// table's iterator is inlined only where ranged over directly, and the
// normal loop does not pay for this one's filter.
func (d *state) faithfulStruct(id uint32, r record) {
	s := hashShallow(r)
	k := key{h: s, shallow: s, base: d.base} // top 0: every candidate
	top := d.topSig(id)
	tw := d.twinOf[id]
	newID := id
	for c := range d.tab.candidates(k) {
		if tw != 0 && !d.sameTwin(tw, c) {
			if d.failsClean(r, c) {
				continue
			}
		} else if d.filedTop(c) != top {
			continue
		}
		if st := d.structStep(id, r, c); st != stepNext {
			if st == stepStop {
				return
			}
			newID = c
			break
		}
	}
	d.link(id, newID)
	if newID == id {
		d.tab.add(s, id)
		d.ftop[id-d.first] = top
	}
}

// filedTop returns the top signature of c, a struct, union or typedef
// filed in faithful mode, or one of the base's.
func (d *state) filedTop(c uint32) uint32 {
	if c <= d.blast {
		return d.base.sig(c, sigTop)
	}
	return d.ftop[c-d.first]
}

// failsClean reports whether comparing r, a tainted type's record, with
// candidate c must fail without an error, by the pairs the comparison
// meets first (pushRefs' order): pairs that resolve to one type hold and
// leave no trace; while the hypothetical map holds only what the pairs
// so far put there (known), each pair is followed down its first
// references (firstPath): one that fails there fails the comparison, one
// that holds down a chain of single references leaves the map known; a
// pair of different signatures whose own side is not tainted fails, or
// one before it does, without an error (the signatures' argument,
// sig.go); any other tainted pair ends the look (it may fail with an
// error: compare).
func (d *state) failsClean(r record, c uint32) bool {
	cr := d.rec(c)
	if len(cr) != len(r) || cr[wInfo] != r[wInfo] {
		return true // not shallow-equal: structStep skips it too
	}
	// The chain is of r's shallow hash: shallow equality is not checked
	// here (structStep checks it), since a candidate that is not
	// shallow-equal is skipped whatever failsClean answers.
	canons := append(d.pathScratch[:0], c) // the map's keys, while known
	known := true
	defer func() { d.pathScratch = canons[:0] }()
	step := func(a, b uint32) (done, fails bool) {
		if d.resolve(a) == d.resolve(b) {
			return false, false
		}
		if known {
			var p int
			canons, p = d.firstPath(canons, a, b)
			switch p {
			case pathFails:
				return true, true
			case pathHolds:
				return false, false
			}
			known = false
		}
		switch {
		case d.twinOf[a] != 0:
			return true, false
		case d.sig(a, sigDepth) != d.sig(b, sigDepth):
			return true, true
		}
		return false, false
	}
	s := r.Shape()
	for _, i := range [2]int{s.Ref1, s.Ref0} {
		if i >= 0 {
			if done, fails := step(r[i], cr[i]); done {
				return fails
			}
		}
	}
	if s.ElemRef >= 0 {
		for i := s.Fixed + s.ElemRef; i < len(r); i += s.Elem {
			if done, fails := step(r[i], cr[i]); done {
				return fails
			}
		}
	}
	return false
}

// What firstPath found of a pair.
const (
	pathUnknown = iota // it may fail with an error, or what follows is not known
	pathFails          // the pair fails, without an error
	pathHolds          // the pair holds, the map's keys are canons
)

// firstPath follows equivPair from the pair (a, b), whose comparison
// starts with canons as the keys of the hypothetical map, down the first
// pair each compared pair pushes, and returns canons with the keys it
// adds: pathFails if a pair on that path fails (and with it the pair)
// before any could fail with an error; pathHolds if the path, all of
// pointers, qualifiers, typedefs and the like, ends in a pair that holds;
// pathUnknown otherwise (an error is possible, the path meets a key
// already in the map, or a shallow-equal struct, union, array or
// prototype, whose several pairs the comparison itself goes through).
func (d *state) firstPath(canons []uint32, a, b uint32) ([]uint32, int) {
	for range maxFirstPath {
		if d.resolve(a) == d.resolve(b) {
			return canons, pathHolds
		}
		b = d.resolveFwd(b)
		for _, x := range canons {
			if x == b {
				return canons, pathUnknown
			}
		}
		canons = append(canons, b)
		ra, rb := d.rec(a), d.rec(b)
		ka, kb := kindOf(ra), kindOf(rb)
		switch {
		case ra[wName] != rb[wName]:
			return canons, pathFails
		case ka == btf.KindForward || kb == btf.KindForward:
			return canons, pathUnknown
		case ka != kb:
			return canons, pathFails
		}
		switch ka {
		case btf.KindInt, btf.KindFloat:
			if !equalAll(ra, rb) {
				return canons, pathFails
			}
			return canons, pathHolds
		case btf.KindEnum, btf.KindEnum64:
			if !compatEnum(ra, rb) {
				return canons, pathFails
			}
			return canons, pathHolds
		case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPointer,
			btf.KindTypedef, btf.KindFunc, btf.KindTypeTag:
			if ra[wInfo] != rb[wInfo] {
				return canons, pathFails
			}
			a, b = ra[wSize], rb[wSize]
		case btf.KindArray, btf.KindStruct, btf.KindUnion, btf.KindFuncProto:
			// Shallow-equal, the pair pushes several: the comparison
			// decides (going down the first would mostly walk what
			// it then walks again).
			if !equalShallow(ra, rb) {
				return canons, pathFails
			}
			return canons, pathUnknown
		default:
			return canons, pathUnknown // a VAR, DATASEC or DECL_TAG: an error, or not
		}
	}
	return canons, pathUnknown
}

// maxFirstPath bounds the pairs firstPath follows: the comparison itself
// decides longer paths.
const maxFirstPath = 64
