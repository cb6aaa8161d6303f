package kallsyms_test

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/kallsyms"
)

// A profiler resolves many addresses with one Symbol and one buffer,
// reused: LookupAppend allocates nothing.
func ExampleSnapshot_LookupAppend() {
	const text = `ffffffff81000000 T _stext
ffffffff81000100 t __pfx_do_work
ffffffff81000110 t do_work
ffffffff81000200 T do_more
ffffffffc0000000 t __pfx_mod_init	[mymod]
ffffffffc0000010 t mod_init	[mymod]
`
	s, err := kallsyms.Parse(strings.NewReader(text), kallsyms.Options{})
	if err != nil {
		panic(err)
	}
	var sym kallsyms.Symbol
	buf := make([]byte, 0, 256)
	for _, addr := range []uint64{0xffffffff81000108, 0xffffffff81000150, 0xffffffffc0000020} {
		name, err := s.LookupAppend(buf[:0], &sym, addr)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%#x %s+%#x [%s]\n", addr, name, sym.Offset, sym.Module)
	}
	// Output:
	// 0xffffffff81000108 __pfx_do_work+0x8 [vmlinux]
	// 0xffffffff81000150 do_work+0x40 [vmlinux]
	// 0xffffffffc0000020 mod_init+0x10 [mymod]
}
