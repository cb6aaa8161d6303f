package btf

import (
	"iter"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
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
		info := wire.Word(r, 4)
		sh := &refShapes[wire.InfoKind(info)]
		if sh.word2 != 0 && !yield(TypeID(wire.Word(r, 8))) {
			return
		}
		if sh.array && (!yield(TypeID(wire.Word(r, 12))) || !yield(TypeID(wire.Word(r, 16)))) {
			return
		}
		if sh.typeMask == 0 {
			return
		}
		e := r[wire.TypeSize:][:uint32(wire.InfoVlen(info))*sh.elemSize]
		for ; len(e) > 0; e = e[sh.elemSize:] {
			if !yield(TypeID(wire.Word(e, sh.typeAt))) {
				return
			}
		}
	}
}
