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

// A snapshot is never changed: WithSymbols and Without derive new ones,
// here as package kallsyms/live does when the kernel reports a BPF
// program loaded (with its length) and a module removed.
func ExampleSnapshot_WithSymbols() {
	const text = `ffffffff81000000 T _stext
ffffffff81000110 t do_work
ffffffffc0000010 t mod_init	[mymod]
`
	s, err := kallsyms.Parse(strings.NewReader(text), kallsyms.Options{})
	if err != nil {
		panic(err)
	}
	const prog = 0xffffffffc1000000
	patched := s.WithSymbols(kallsyms.BPF, []kallsyms.SizedSymbol{
		{Name: "bpf_prog_59f4a931744dcdc6_filter", Addr: prog, Size: 0x40},
	}).Without("mymod")
	show := func(s *kallsyms.Snapshot, addr uint64) {
		sym, err := s.Lookup(addr)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%#x: %s+%#x [%s]\n", addr, sym.Name, sym.Offset, sym.Module)
	}
	for _, addr := range []uint64{prog + 8, prog + 0x40, 0xffffffffc0000020} {
		show(patched, addr)
	}
	show(s, 0xffffffffc0000020) // s is as it was
	// Output:
	// 0xffffffffc1000008: bpf_prog_59f4a931744dcdc6_filter+0x8 [bpf]
	// kallsyms: address 0xffffffffc1000040: not found: address outside every text symbol (in data? Options.Data keeps data symbols)
	// kallsyms: address 0xffffffffc0000020: not found
	// 0xffffffffc0000020: mod_init+0x10 [mymod]
}

// A name that many symbols share (static functions of the same name in
// the kernel and its modules) is printed as the matches come, without
// holding them: LookupNameSeq yields one at a time.
func ExampleSnapshot_LookupNameSeq() {
	const text = `ffffffff81000000 T _stext
ffffffff81000110 t cleanup
ffffffff81000200 T do_more
ffffffff81000300 t cleanup
ffffffffc0000010 t cleanup	[mymod]
`
	s, err := kallsyms.Parse(strings.NewReader(text), kallsyms.Options{})
	if err != nil {
		panic(err)
	}
	n := 0
	for sym := range s.LookupNameSeq("cleanup", "") {
		fmt.Printf("%#x %s [%s]\n", sym.Addr, sym.Name, sym.Module)
		n++
	}
	fmt.Println(n, "matches")
	// Output:
	// 0xffffffff81000110 cleanup [vmlinux]
	// 0xffffffff81000300 cleanup [vmlinux]
	// 0xffffffffc0000010 cleanup [mymod]
	// 3 matches
}
