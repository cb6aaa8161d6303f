package builder

import (
	"errors"

	"github.com/kmeta-dev/kmeta/btf"
)

// ErrForgotten is returned by Marshal on a Builder whose records were
// dropped by Forget: it no longer holds all its types.
var ErrForgotten = errors.New("builder: types were handed on and forgotten (Forget)")

// Records returns the records of the types added since the last Forget
// (all of them if Forget was never called), back to back in host byte
// order, as a type section holds them: final type ids, names as offsets
// in the Builder's string space (see Strings). first is the id of the
// first of them. The slice is the Builder's own and is valid, read-only,
// until the Builder next changes.
//
// Records, Strings and Forget let a consumer (btf/dedup) take the types
// of a Builder that grows without bound, such as a DWARF encoder's, in
// pieces, so that they are never held twice.
func (b *Builder) Records() (types []byte, first btf.TypeID) {
	return b.types, b.firstID + btf.TypeID(b.n-b.kept())
}

// kept returns the number of types Records holds.
func (b *Builder) kept() uint32 { return b.n - b.forgot }

// Strings returns the Builder's own string section and the offset of its
// first byte in the string space (0 for standalone BTF, where it starts
// with the empty string; the base's string section size for split BTF).
// Strings are never forgotten. The slice is valid, read-only, until the
// Builder next changes.
func (b *Builder) Strings() (data []byte, start uint32) {
	return b.strs.data(), b.strs.start()
}

// Forget drops the records that Records returns, keeping the memory for
// the types added next. Ids go on where they were, strings stay, and types
// added later may refer to forgotten ones; but the Builder can no longer
// be marshalled (ErrForgotten).
func (b *Builder) Forget() {
	b.types = b.types[:0]
	b.forgot = b.n
}
