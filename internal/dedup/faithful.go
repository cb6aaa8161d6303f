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
			d.taint(baseOdd, twinned)
			return
		}
	}
}

// taint marks in d.tainted the own types whose graphs reach a type that
// twinned reports: those that refer to one, and those that refer to
// those, found through the references turned around (one pass to count
// them, one to place them, one breadth-first walk). Records of VARs,
// DATASECs and DECL_TAGs pass nothing on: the comparison never follows
// their references. Base types are walked only if one refers to such a
// type (withBase); otherwise none reaches one.
func (d *state) taint(withBase bool, twinned func(uint32) bool) {
	n := d.n()
	d.tainted = makeMapped[uint8](int(n), &d.taintMem)
	d.ftop = makeMapped[uint32](int(n), &d.ftopMem)
	lo := d.first // the ids walked: lo..d.first+n-1
	if withBase {
		lo = 1
	}
	size := d.first + n - lo
	var startMem, edgeMem, markMem *mmap.Region
	defer mmap.Free(&startMem, &edgeMem, &markMem)
	// start[x+1] counts, then ends, then starts the referrers of lo+x.
	start := makePopulated[uint32](int(size)+2, &startMem)
	mark := makePopulated[uint8](int(size), &markMem)
	queue := []uint32{}
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
		if twinned(ref) && mark[t-lo] == 0 {
			mark[t-lo] = 1
			queue = append(queue, t)
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
	// Now the referrers of lo+x are edges[start[x+1]:start[x+2]].
	for len(queue) > 0 {
		x := queue[len(queue)-1] - lo
		queue = queue[:len(queue)-1]
		for _, t := range edges[start[x+1]:start[x+2]] {
			if mark[t-lo] == 0 {
				mark[t-lo] = 1
				queue = append(queue, t)
			}
		}
	}
	copy(d.tainted, mark[d.first-lo:])
}

// faithfulStruct is structType in faithful mode: the candidates of the
// shallow hash in libbpf's order, every one for a tainted type, those of
// its top signature otherwise; filed under the shallow hash.
func (d *state) faithfulStruct(id uint32, r record) {
	s := hashShallow(r)
	k := key{h: s, shallow: s, every: true, base: d.base}
	top := d.topSig(id)
	every := d.tainted[id-d.first] != 0
	newID := id
	for c := range d.tab.candidates(k) {
		if !every && d.filedTop(c) != top {
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
