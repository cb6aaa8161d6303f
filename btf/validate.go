package btf

import (
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/wire"
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
// Where a kind keeps its references comes from wire.Shapes.
func (v *validator) check(id TypeID, off uint32) error {
	r := wire.Record(v.s.types[off:])
	if name := r.NameOff(); name >= v.strEnd {
		return typeErr(id, off, "name offset %d outside the string section (size %d)", name, v.strEnd)
	}
	k := r.Kind()
	sh, n := &wire.Shapes[k], refNouns(Kind(k))
	if sh.Ref0Mask != 0 {
		if err := v.ref(id, off, n.ref0, wire.Word(r, sh.Ref0At)); err != nil {
			return err
		}
	}
	if sh.Ref1Mask != 0 {
		if err := v.ref(id, off, n.ref1, wire.Word(r, sh.Ref1At)); err != nil {
			return err
		}
	}
	if sh.ElemSize == 0 {
		return nil
	}
	return v.elems(id, off, r, sh, n.elem)
}

// nouns name a kind's references in error messages; "" for the one type
// field of a PTR, TYPEDEF, VAR, ... ("type 5 (...): refers to type 9",
// not "type refers to type 9").
type nouns struct{ ref0, ref1, elem string }

func refNouns(k Kind) nouns {
	switch k {
	case KindArray:
		return nouns{"element type", "index type", ""}
	case KindFuncProto:
		return nouns{"return type", "", "parameter"}
	case KindStruct, KindUnion:
		return nouns{"", "", "member"}
	case KindEnum, KindEnum64:
		return nouns{"", "", "enumerator"}
	case KindDatasec:
		return nouns{"", "", "variable"}
	}
	return nouns{}
}

// elems checks the vlen elements of record r, whose shape is sh.
func (v *validator) elems(id TypeID, off uint32, r wire.Record, sh *wire.Shape, what string) error {
	es := sh.ElemSize
	vlen := uint32(r.Vlen())
	e := r[sh.ElemStart:][:vlen*es]
	for i := uint32(0); i < vlen*es; i += es {
		if sh.ElemNameMask != 0 {
			if o := wire.Word(e, i+sh.ElemNameAt); o >= v.strEnd {
				return typeErr(id, off, "%s %d name offset %d outside the string section (size %d)", what, i/es, o, v.strEnd)
			}
		}
		if sh.ElemTypeMask != 0 {
			if t := wire.Word(e, i+sh.ElemTypeAt); t > v.last {
				return typeErr(id, off, "%s %d refers to type %d, beyond the last (%d)", what, i/es, t, v.last)
			}
		}
	}
	return nil
}

func (v *validator) ref(id TypeID, off uint32, what string, t uint32) error {
	if t > v.last {
		subject := "refers to" // the record's one type field
		if what != "" {
			subject = what + " refers to"
		}
		return typeErr(id, off, "%s type %d, beyond the last (%d)", subject, t, v.last)
	}
	return nil
}

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
