package dwarf2btf

import (
	"debug/elf"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestElfFuncsFind checks the table's order and find, with its filter
// and its comparison of names' first bytes, against what they stand for:
// glibc's qsort and bsearch with functions_cmp, the names compared in full.
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
	tab := newElfFuncs(slices.All(syms))
	// The table's order is that of the plain comparison.
	var plain []elfFunc
	for _, n := range names {
		f := elfFunc{name: n, prefixLen: len(n)}
		if i := strings.IndexByte(n, '.'); i >= 0 {
			f.prefixLen = i
		}
		plain = append(plain, f)
	}
	for i, k := range msort(len(plain), func(i, j int) int { return plainCmp(&plain[i], &plain[j]) }) {
		if got, want := tab.funcs[i].name, plain[k].name; got != want {
			t.Errorf("sorted table [%d] = %q, want %q", i, got, want)
		}
	}
	ref := func(name string, prefixLen int) int {
		key := elfFunc{name: name, prefixLen: prefixLen}
		lo, hi := 0, len(tab.funcs)
		for lo < hi {
			i := (lo + hi) / 2
			switch c := plainCmp(&key, &tab.funcs[i]); {
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

// plainCmp is pahole's functions_cmp, reading the names every time.
func plainCmp(a, b *elfFunc) int {
	if a.prefixLen != 0 && a.prefixLen == b.prefixLen {
		return strncmp(a.name, b.name, b.prefixLen)
	}
	return strings.Compare(a.name, b.name)
}
