package btf

import "github.com/kmeta-dev/kmeta/btf/internal/wire"

// Record returns the bytes of t's type record, in host byte order: the
// 12-byte fixed part and what follows it, as the Spec's layouts size it.
// It returns nil for void and once the Spec is closed. The bytes belong to
// the Spec and must not be modified; they are valid until Close.
//
// Writers (btf/builder) copy records this way and patch their type ids and
// string offsets, instead of decoding every field through the accessors.
func (t Type) Record() []byte {
	r := t.rec()
	if r == nil {
		return nil
	}
	size, _ := t.spec.layouts.RecordSize(wire.Word(r, 4))
	return r[:size:size]
}
