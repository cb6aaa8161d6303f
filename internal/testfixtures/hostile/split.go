package hostile

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// SplitOn returns split BTF in host byte order on base (raw BTF, any of
// the shapes): n structs "m0", "m1", ..., each holding the base's last
// type, a pointer to it and a pointer to the struct before, so that every
// type of the split reaches the deepest of the base. Opened on another
// base, its references to the base dangle or land on other types.
func SplitOn(base []byte, n int) ([]byte, error) {
	s, err := btf.Parse(base, btf.Options{})
	if err != nil {
		return nil, fmt.Errorf("hostile: split: %w", err)
	}
	defer s.Close()
	b, err := builder.NewSplit(s)
	if err != nil {
		return nil, err
	}
	b.AllowManyTypes()
	last, prev := s.LastID(), btf.TypeID(0)
	for i := range n {
		p, err := b.AddPointer(last)
		if err != nil {
			return nil, err
		}
		self := b.NextID()
		ms := []builder.Member{{Name: "m", Type: last}, {Name: "p", Type: p, BitOffset: 64}, {Name: "prev", Type: prev, BitOffset: 128}}
		if prev == 0 {
			ms = ms[:2]
		}
		if _, err := b.AddStruct(fmt.Sprintf("m%d", i), 24, ms); err != nil {
			return nil, err
		}
		if prev, err = b.AddPointer(self); err != nil {
			return nil, err
		}
	}
	return b.Marshal(builder.Options{})
}

// Kallsyms returns /proc/kallsyms text of n symbols, each in a module of
// its own when modules is set (n modules), else in vmlinux, every name
// (and module name) padded to nameLen bytes with a distinct prefix.
func Kallsyms(n int, modules bool, nameLen int) []byte {
	var out bytes.Buffer
	pad := strings.Repeat("y", nameLen)
	name := func(prefix string, i int) string {
		s := fmt.Sprintf("%s%d_", prefix, i)
		if len(s) < nameLen {
			s += pad[len(s):]
		}
		return s
	}
	for i := range n {
		addr := uint64(0xffffffff81000000) + uint64(i)*16
		if modules {
			addr = 0xffffffffc0000000 + uint64(i)*16
			fmt.Fprintf(&out, "%016x t %s\t[%s]\n", addr, name("sym", i), name("mod", i))
			continue
		}
		fmt.Fprintf(&out, "%016x T %s\n", addr, name("sym", i))
	}
	return out.Bytes()
}
