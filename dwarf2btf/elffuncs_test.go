package dwarf2btf

import (
	"debug/elf"
	"fmt"
	"testing"
)

// TestElfFuncsFind checks find, with its filter and its comparison of
// names' first bytes, against the binary search it stands for: glibc's
// bsearch with functions_cmp over the sorted table, every probe compared
// in full.
func TestElfFuncsFind(t *testing.T) {
	names := []string{"a", "ab", "abc", "abcdefgh", "abcdefghi", "abcdefghij", "abcdefgh.isra.0",
		"abcdefgh.cold", "abcdefgi", "b.constprop.0", "b", "b.cold", "bb.isra.0", "x.y.z", ".hidden",
		"ksys_read", "ksys_read.cold", "ksys_readahead", "ksys_write.isra.0", "ksys_write", "__x64_sys_read",
		"__x64_sys_read", "__x64_sys_readv", "zz"}
	for i := range 300 {
		names = append(names, fmt.Sprintf("fn_%03d", i*7%300), fmt.Sprintf("fn_%03d.part.%d", i%50, i%3))
	}
	var syms []elf.Symbol
	for _, n := range names {
		syms = append(syms, elf.Symbol{Name: n, Info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_FUNC)})
	}
	tab := newElfFuncs(syms)
	ref := func(name string, prefixLen int) int {
		key := elfFunc{name: name, prefixLen: prefixLen}
		lo, hi := 0, len(tab.funcs)
		for lo < hi {
			i := (lo + hi) / 2
			switch c := functionsCmp(&key, &tab.funcs[i]); {
			case c < 0:
				hi = i
			case c > 0:
				lo = i + 1
			default:
				return i
			}
		}
		return -1
	}
	keys := append([]string{"", "abcdefg", "abcdefgh.", "b.", "ksys", "fn_", "fn_999", "x", "x.y"}, names...)
	for _, n := range names {
		if i := len(n) / 2; i > 0 {
			keys = append(keys, n[:i], n+"x")
		}
	}
	found := 0
	for _, k := range keys {
		for _, pl := range []int{0, len(k)} {
			want := ref(k, pl)
			if got := tab.find([]byte(k), pl); got != want {
				t.Errorf("find(%q, %d) = %d, want %d", k, pl, got, want)
			}
			if want >= 0 {
				found++
			}
		}
	}
	if found == 0 {
		t.Fatal("no key found: the test checks nothing")
	}
}
