package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// maxCycleSteps bounds the search of deepError: the types a crafted graph
// lets it visit.
const maxCycleSteps = 1 << 20

// deepError is the error for a walk from id that went deeper than
// maxDepth: ErrTypeCycle if a cycle can be reached from id (loops of
// pointers or typedefs are found that way), ErrTooDeep otherwise. Both
// name the top-level type the walk was for (culprit), not id.
func (d *dumper) deepError(id btf.TypeID, what string) error {
	if d.cycleFrom(id) {
		return pkgerr.Errorf("cdump: %s: %s: %w", d.describe(d.culprit(id)), what, ErrTypeCycle)
	}
	return pkgerr.Errorf("cdump: %s: %w", d.describe(d.culprit(id)), ErrTooDeep)
}

// cycleError is the error for a strong cycle through type id: it names
// the top-level type being printed too (culprit), when that is another
// type, so that an anonymous type in the cycle can be found.
func (d *dumper) cycleError(id btf.TypeID) error {
	if root := d.culprit(id); root != id {
		return pkgerr.Errorf("cdump: %s: %s: %w", d.describe(root), d.describe(id), ErrTypeCycle)
	}
	return pkgerr.Errorf("cdump: %s: %w", d.describe(id), ErrTypeCycle)
}

// cycleFrom reports whether a cycle of references can be reached from id
// (a search of at most maxCycleSteps types; beyond it, no). The walk's
// path is kept in three arrays of one entry per type, allocated once: a
// mark, the type it was reached from and the index of its next reference,
// read from its record (refAt). A path of frames holding copies of their
// references grew to three times the input on a deep chain.
func (d *dumper) cycleFrom(id btf.TypeID) bool {
	const (
		open = 1
		done = 2
	)
	n := int(d.spec.LastID()) + 1
	if int(id) >= n {
		return false
	}
	color := make([]uint8, n)
	parent := make([]btf.TypeID, n)
	next := make([]uint32, n)
	cur := id
	color[cur] = open
	for steps := 0; steps < maxCycleSteps; steps++ {
		ref, ok := d.refAt(cur, next[cur])
		if !ok {
			color[cur] = done
			if cur == id {
				return false
			}
			cur = parent[cur]
			continue
		}
		next[cur]++
		if ref == 0 || int(ref) >= n {
			continue
		}
		switch color[ref] {
		case open:
			return true
		case 0:
			color[ref], parent[ref] = open, cur
			cur = ref
		}
	}
	return false
}

// refAt returns the k-th type that id's record refers to, in the order of
// btf.Type.Refs, or false past the last: read in place, so that a walk
// resumes a type of many members without keeping them.
func (d *dumper) refAt(id btf.TypeID, k uint32) (btf.TypeID, bool) {
	t, err := d.spec.TypeByID(id)
	if err != nil {
		return 0, false
	}
	i := int(k)
	switch t.Kind() {
	case btf.KindStruct, btf.KindUnion:
		if i < t.Vlen() {
			return t.Member(i).Type, true
		}
	case btf.KindFuncProto:
		if i == 0 {
			return t.Ref(), true
		}
		if i-1 < t.Vlen() {
			return t.Param(i - 1).Type, true
		}
	case btf.KindDatasec:
		if i < t.Vlen() {
			return t.VarSecinfo(i).Type, true
		}
	case btf.KindArray:
		if i < 2 {
			a := t.Array()
			return [2]btf.TypeID{a.Type, a.Index}[i], true
		}
	case btf.KindPointer, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag,
		btf.KindFunc, btf.KindVar, btf.KindDeclTag:
		if i == 0 {
			return t.Ref(), true
		}
	}
	return 0, false
}
