package btf

import (
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// validator checks the type ids and string offsets that records refer to.
type validator struct {
	s      *Spec
	last   uint32 // largest valid type id
	strEnd uint32 // first string offset past the string space
}

func (s *Spec) newValidator() validator {
	return validator{s: s, strEnd: s.strEnd()}
}

// check checks the record of type id at off. Bounds were checked before.
func (v *validator) check(id TypeID, off, info uint32) error {
	rec := v.s.types[off:]
	if name := wire.Word(rec, 0); name >= v.strEnd {
		return typeErr(id, off, "name offset %d outside the string section (size %d)", name, v.strEnd)
	}
	vlen := uint32(wire.InfoVlen(info))
	switch kind := wire.InfoKind(info); kind {
	case wire.KindInt, wire.KindForward, wire.KindFloat:
	case wire.KindPointer, wire.KindTypedef, wire.KindVolatile, wire.KindConst, wire.KindRestrict,
		wire.KindFunc, wire.KindVar, wire.KindDeclTag, wire.KindTypeTag:
		return v.ref(id, off, "type", wire.Word(rec, 8))
	case wire.KindArray:
		if err := v.ref(id, off, "element type", wire.Word(rec, 12)); err != nil {
			return err
		}
		return v.ref(id, off, "index type", wire.Word(rec, 16))
	case wire.KindStruct, wire.KindUnion:
		return v.elems(id, off, rec, vlen, 12, 0, 4, "member")
	case wire.KindEnum:
		return v.elems(id, off, rec, vlen, 8, 0, -1, "enumerator")
	case wire.KindEnum64:
		return v.elems(id, off, rec, vlen, 12, 0, -1, "enumerator")
	case wire.KindFuncProto:
		if err := v.ref(id, off, "return type", wire.Word(rec, 8)); err != nil {
			return err
		}
		return v.elems(id, off, rec, vlen, 8, 0, 4, "parameter")
	case wire.KindDatasec:
		return v.elems(id, off, rec, vlen, 12, -1, 0, "variable")
	}
	return nil
}

// elems checks vlen elements of size es after the fixed part, each with a
// name at byte nameAt and a type at typeAt (-1 for none).
func (v *validator) elems(id TypeID, off uint32, rec []byte, vlen, es uint32, nameAt, typeAt int, what string) error {
	e := rec[wire.TypeSize:][:vlen*es]
	for i := uint32(0); i < vlen*es; i += es {
		if nameAt >= 0 {
			if o := wire.Word(e, i+uint32(nameAt)); o >= v.strEnd {
				return typeErr(id, off, "%s %d name offset %d outside the string section (size %d)", what, i/es, o, v.strEnd)
			}
		}
		if typeAt >= 0 {
			if t := wire.Word(e, i+uint32(typeAt)); t > v.last {
				return typeErr(id, off, "%s %d refers to type %d, beyond the last type %d", what, i/es, t, v.last)
			}
		}
	}
	return nil
}

func (v *validator) ref(id TypeID, off uint32, what string, t uint32) error {
	if t > v.last {
		return typeErr(id, off, "%s refers to type %d, beyond the last type %d", what, t, v.last)
	}
	return nil
}

// refShape says where the records of one kind keep type ids and string
// offsets, as masks, so that maxRefs.add treats every kind with the same
// few instructions instead of a switch that mispredicts on kernel BTF,
// whose kinds come in no order.
type refShape struct {
	word2    uint32 // all ones if word 2 (size or type) is a type id
	array    bool   // words 3 and 4 are type ids
	elemSize uint32 // size of a vlen element; 0 if the kind has none
	nameMask uint32 // all ones if an element's word 0 is a string offset
	typeMask uint32 // all ones if an element has a type id at typeAt
	typeAt   uint32
}

var refShapes = func() (shapes [wire.MaxKind + 1]refShape) {
	for _, k := range []wire.Kind{wire.KindPointer, wire.KindTypedef, wire.KindVolatile, wire.KindConst,
		wire.KindRestrict, wire.KindFunc, wire.KindVar, wire.KindDeclTag, wire.KindTypeTag, wire.KindFuncProto} {
		shapes[k].word2 = ^uint32(0)
	}
	shapes[wire.KindArray].array = true
	shapes[wire.KindStruct] = refShape{elemSize: 12, nameMask: ^uint32(0), typeMask: ^uint32(0), typeAt: 4}
	shapes[wire.KindUnion] = shapes[wire.KindStruct]
	shapes[wire.KindEnum] = refShape{elemSize: 8, nameMask: ^uint32(0)}
	shapes[wire.KindEnum64] = refShape{elemSize: 12, nameMask: ^uint32(0)}
	shapes[wire.KindFuncProto] = refShape{word2: ^uint32(0), elemSize: 8, nameMask: ^uint32(0), typeMask: ^uint32(0), typeAt: 4}
	shapes[wire.KindDatasec] = refShape{elemSize: 12, typeMask: ^uint32(0)}
	return shapes
}()

// words reads host-order 32-bit words of a 4-byte aligned byte slice
// without bounds checks, for the one pass of indexTypes, which checks each
// record's bounds before reading it (BenchmarkOpen). It holds the slice so
// that the memory stays reachable.
type words struct {
	b []byte
}

func newWords(b []byte) words { return words{b: b} }

// at returns the word at byte offset off; off+4 must be within the slice.
func (w words) at(off uint32) uint32 {
	return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.b)), off))
}
