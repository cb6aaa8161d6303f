package layout_test

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// pointerLoops returns BTF of n structs "s0", "s1", ..., each of one
// member that points to its own struct.
func pointerLoops(n int) ([]byte, error) {
	b := builder.New()
	b.AllowManyTypes()
	for i := range n {
		sid := btf.TypeID(2*i + 1)
		if _, err := b.AddStruct(fmt.Sprintf("s%d", i), 8, []builder.Member{{Name: "next", Type: sid + 1}}); err != nil {
			return nil, err
		}
		if _, err := b.AddPointer(sid); err != nil {
			return nil, err
		}
	}
	return b.Marshal(builder.Options{})
}
