package diff

import (
	"bytes"

	"github.com/kmeta-dev/kmeta/btf"
)

// The fast path of Compare: most types of two kernels are the same, and
// proving it structurally is much cheaper than spelling both in C. same and
// sameTop are never looser than comparing signatures: when they say
// "same", the signatures are equal; when they say "different", Compare
// compares the signatures, which decide.

// maxSame bounds the recursion of same through anonymous types.
const maxSame = 64

// The comparisons of anonymous prototypes and of anonymous struct and
// union members are remembered by the pair of ids compared (side.same,
// on the old side): many FUNCs share one prototype, many structs a
// member of one anonymous type, and comparing it again for each use made
// btf diff grow as the uses times its width (issue 37: 1,024 FUNCs of
// one prototype of 65,535 parameters took 15.6 s on a 1 MB input), or
// as 2 to the depth for prototypes whose parameters point to the next.
// A result found past maxSame may be "different" where a shallower
// comparison says "same": remembered, it only sends the pair to the
// signatures, which decide, as they do for any "different".
type idPair struct{ a, b btf.TypeID }

// maxSameMemo bounds the pairs a side remembers: it forgets them all
// when full (some 3 MB).
const maxSameMemo = 1 << 16

// memosOff makes sameMemo and layouts remember nothing, as before they
// did, for the tests that compare the two. (A variable for the tests.)
var memosOff = false

// sameMemo returns the result remembered for the pair (ia, ib) and
// whether there is one.
func (sd *side) sameMemo(ia, ib btf.TypeID) (same, ok bool) {
	if memosOff {
		return false, false
	}
	same, ok = sd.same[idPair{ia, ib}]
	return same, ok
}

// remember keeps same as the result for the pair (ia, ib), and returns it.
func (sd *side) remember(ia, ib btf.TypeID, same bool) bool {
	if sd.same == nil || len(sd.same) >= maxSameMemo {
		sd.same = make(map[idPair]bool)
	}
	sd.same[idPair{ia, ib}] = same
	return same
}

// sameTop reports whether the named types ia of a and ib of b have the
// same facts.
func sameTop(a, b *side, ia, ib btf.TypeID) bool {
	ta, errA := a.spec.TypeByID(ia)
	tb, errB := b.spec.TypeByID(ib)
	if errA != nil || errB != nil || ta.Kind() != tb.Kind() {
		return false
	}
	switch ta.Kind() {
	case btf.KindStruct, btf.KindUnion:
		return ta.Size() == tb.Size() && sameMembers(a, b, ta, tb, 0)
	case btf.KindEnum, btf.KindEnum64:
		return sameEnum(ta, tb)
	case btf.KindFunc, btf.KindVar:
		return ta.Linkage() == tb.Linkage() && same(a, b, ta.Ref(), tb.Ref(), 0)
	case btf.KindTypedef, btf.KindTypeTag:
		return same(a, b, ta.Ref(), tb.Ref(), 0)
	case btf.KindDeclTag:
		return ta.ComponentIdx() == tb.ComponentIdx() && same(a, b, ta.Ref(), tb.Ref(), 0)
	case btf.KindInt:
		return ta.Size() == tb.Size() && ta.Int() == tb.Int()
	case btf.KindForward:
		return ta.IsUnionForward() == tb.IsUnionForward()
	}
	return ta.Size() == tb.Size()
}

// comparedPerSpelled is how many members, enumerators or parameters that
// sameTop compares count as one type spelled between two checks of the
// context (side.pollSpelled).
const comparedPerSpelled = 16

// topWork is about how many members, enumerators or parameters sameTop
// compares for type id of sd: its own, and those of the type a FUNC, VAR,
// typedef or tag refers to.
func topWork(sd *side, id btf.TypeID) int {
	t, err := sd.spec.TypeByID(id)
	if err != nil {
		return 0
	}
	n := t.Vlen()
	switch t.Kind() {
	case btf.KindFunc, btf.KindVar, btf.KindTypedef, btf.KindTypeTag, btf.KindDeclTag:
		if r, err := sd.spec.TypeByID(t.Ref()); err == nil {
			n += r.Vlen()
		}
	}
	return n
}

// sameMembers compares the members of two composites: names, offsets,
// bitfield sizes and types.
func sameMembers(a, b *side, ta, tb btf.Type, depth int) bool {
	if ta.Vlen() != tb.Vlen() || depth > maxSame {
		return false
	}
	for i := range ta.Vlen() {
		ma, mb := ta.Member(i), tb.Member(i)
		if ma.BitOffset != mb.BitOffset || ma.BitfieldSize != mb.BitfieldSize ||
			!bytes.Equal(ma.NameBytes(), mb.NameBytes()) {
			return false
		}
		// An anonymous struct or union member is compared by its members,
		// as signature flattens them.
		ea, _ := a.spec.TypeByID(ma.Type)
		eb, _ := b.spec.TypeByID(mb.Type)
		if ea.IsComposite() && ea.NameOffset() == 0 {
			if ea.Kind() != eb.Kind() || eb.NameOffset() != 0 {
				return false
			}
			same, ok := a.sameMemo(ma.Type, mb.Type)
			if !ok {
				same = a.remember(ma.Type, mb.Type, sameMembers(a, b, ea, eb, depth+1))
			}
			if !same {
				return false
			}
			continue
		}
		if !same(a, b, ma.Type, mb.Type, depth+1) {
			return false
		}
	}
	return true
}

// sameProto compares two anonymous prototypes: their return types, and
// their parameters' names and types.
func sameProto(a, b *side, ta, tb btf.Type, depth int) bool {
	if ta.Vlen() != tb.Vlen() || !same(a, b, ta.Ref(), tb.Ref(), depth+1) {
		return false
	}
	for i := range ta.Vlen() {
		pa, pb := ta.Param(i), tb.Param(i)
		if !bytes.Equal(pa.NameBytes(), pb.NameBytes()) || !same(a, b, pa.Type, pb.Type, depth+1) {
			return false
		}
	}
	return true
}

func sameEnum(ta, tb btf.Type) bool {
	if ta.Size() != tb.Size() || ta.KindFlag() != tb.KindFlag() || ta.Vlen() != tb.Vlen() {
		return false
	}
	for i := range ta.Vlen() {
		va, vb := ta.EnumValue(i), tb.EnumValue(i)
		if va.Value != vb.Value || !bytes.Equal(va.NameBytes(), vb.NameBytes()) {
			return false
		}
	}
	return true
}

// same reports whether a reference to type ia in a reads as a reference
// to ib in b: named types by kind and name, the others by structure.
func same(a, b *side, ia, ib btf.TypeID, depth int) bool {
	if ia == 0 || ib == 0 {
		return ia == ib
	}
	if depth > maxSame {
		return false
	}
	ta, errA := a.spec.TypeByID(ia)
	tb, errB := b.spec.TypeByID(ib)
	if errA != nil || errB != nil || ta.Kind() != tb.Kind() {
		return false
	}
	if na, nb := ta.NameBytes(), tb.NameBytes(); len(na) > 0 || len(nb) > 0 {
		switch ta.Kind() {
		case btf.KindFunc, btf.KindVar, btf.KindDeclTag, btf.KindTypeTag:
		default:
			return bytes.Equal(na, nb)
		}
	}
	switch ta.Kind() {
	case btf.KindPointer, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
		return bytes.Equal(ta.NameBytes(), tb.NameBytes()) && same(a, b, ta.Ref(), tb.Ref(), depth+1)
	case btf.KindArray:
		xa, xb := ta.Array(), tb.Array()
		return xa.Nelems == xb.Nelems && same(a, b, xa.Type, xb.Type, depth+1)
	case btf.KindFuncProto:
		if same, ok := a.sameMemo(ia, ib); ok {
			return same
		}
		return a.remember(ia, ib, sameProto(a, b, ta, tb, depth))
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
		return true // anonymous: C names them "struct {...}"
	}
	return false
}
