package btf

import (
	"iter"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Refs iterates over the type ids that t's record refers to, in record
// order: the target of a pointer, typedef, qualifier, tag, FUNC or VAR; an
// array's element and index types; a FUNC_PROTO's return and parameter
// types; the members of a STRUCT or UNION; the variables of a DATASEC. Void
// (0) is included where the record has it. It decodes the record once, so
// walking a type graph with it costs less than calling the accessors (see
// BenchmarkFindTaskStruct). Nothing is yielded for void or after Close.
func (t Type) Refs() iter.Seq[TypeID] {
	return func(yield func(TypeID) bool) {
		r := t.rec()
		if r == nil {
			return
		}
		rec := wire.Record(r)
		sh := &wire.Shapes[rec.Kind()]
		if sh.Ref0Mask != 0 && !yield(TypeID(wire.Word(r, sh.Ref0At))) {
			return
		}
		if sh.Ref1Mask != 0 && !yield(TypeID(wire.Word(r, sh.Ref1At))) {
			return
		}
		if sh.ElemTypeMask == 0 {
			return
		}
		e := r[sh.ElemStart:][:uint32(rec.Vlen())*sh.ElemSize]
		for ; len(e) > 0; e = e[sh.ElemSize:] {
			if !yield(TypeID(wire.Word(e, sh.ElemTypeAt))) {
				return
			}
		}
	}
}
