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

// oddNames returns BTF of a struct "s\n" whose int members are named with
// every byte but NUL, invalid UTF-8, U+2028 and U+2029: what the JSON
// writer must quote as encoding/json does.
func oddNames() ([]byte, error) {
	b := builder.New()
	i, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		return nil, err
	}
	var names []string
	for c := 1; c < 256; c++ {
		names = append(names, fmt.Sprintf("a%cb", c))
	}
	names = append(names, "\u2028x\u2029", "\xe2\x80", "caf\xc3\xa9", "<&>", `q"b\s`, "\xed\xa0\x80")
	var ms []builder.Member
	for k, n := range names {
		ms = append(ms, builder.Member{Name: n, Type: i, BitOffset: uint32(32 * k)})
	}
	if _, err := b.AddStruct("s\n", uint32(4*len(ms)), ms); err != nil {
		return nil, err
	}
	return b.Marshal(builder.Options{})
}
