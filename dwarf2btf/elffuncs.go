package dwarf2btf

import (
	"debug/elf"
	"strings"
)

// elfFunc is one STT_FUNC symbol in pahole 1.30's table of ELF functions
// (struct elf_function): name, the length of its part before the first
// '.', and whether .BTF_ids lists it as a kfunc.
type elfFunc struct {
	name      string
	prefixLen int
	kfunc     bool
	flags     uint32 // its BTF_SET8 pair's flags
}

// elfFuncs is the table, sorted as pahole sorts it.
type elfFuncs struct {
	funcs     []elfFunc
	suffixCnt int // names with a '.'
}

// newElfFuncs is pahole 1.30's elf_functions__collect: every STT_FUNC
// symbol, in symbol table order, then sorted by functions_cmp with glibc's
// qsort (a stable merge sort; functions_cmp is not a total order, so the
// algorithm shows in the result).
func newElfFuncs(syms []elf.Symbol) *elfFuncs {
	t := &elfFuncs{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		f := elfFunc{name: s.Name, prefixLen: len(s.Name)}
		if i := strings.IndexByte(s.Name, '.'); i >= 0 {
			t.suffixCnt++
			f.prefixLen = i
		}
		t.funcs = append(t.funcs, f)
	}
	order := msort(len(t.funcs), func(i, j int) int { return functionsCmp(&t.funcs[i], &t.funcs[j]) })
	sorted := make([]elfFunc, len(t.funcs))
	for i, k := range order {
		sorted[i] = t.funcs[k]
	}
	t.funcs = sorted
	return t
}

// functionsCmp is pahole's functions_cmp: with equal non-zero prefix
// lengths, only the prefixes count.
func functionsCmp(a, b *elfFunc) int {
	if a.prefixLen != 0 && a.prefixLen == b.prefixLen {
		return strncmp(a.name, b.name, b.prefixLen)
	}
	return strings.Compare(a.name, b.name)
}

// strncmp is C's strncmp on strings without NUL bytes.
func strncmp(a, b string, n int) int {
	return strings.Compare(a[:min(n, len(a))], b[:min(n, len(b))])
}

// find is pahole's btf_encoder__find_function: glibc's bsearch over the
// sorted table with functions_cmp, for name (prefixLen 0: the whole name)
// or, with prefixLen len(name), for a function named name plus a suffix.
// It returns -1 when bsearch finds nothing.
func (t *elfFuncs) find(name []byte, prefixLen int) int {
	key := elfFunc{name: view(name), prefixLen: prefixLen}
	lo, hi := 0, len(t.funcs)
	for lo < hi {
		i := (lo + hi) / 2
		switch c := functionsCmp(&key, &t.funcs[i]); {
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

// msort returns the permutation that glibc's qsort (msort_with_tmp, the
// stable top-down merge sort of glibc 2.41, Debian 13's) applies to n
// elements under cmp: the same result even for a comparison that is not
// a total order.
func msort(n int, cmp func(i, j int) int) []int {
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	tmp := make([]int, n)
	var sort func(b []int)
	sort = func(b []int) {
		if len(b) <= 1 {
			return
		}
		n1 := len(b) / 2
		b1, b2 := b[:n1], b[n1:]
		sort(b1)
		sort(b2)
		t := tmp[:0]
		for len(b1) > 0 && len(b2) > 0 {
			if cmp(b1[0], b2[0]) <= 0 {
				t = append(t, b1[0])
				b1 = b1[1:]
			} else {
				t = append(t, b2[0])
				b2 = b2[1:]
			}
		}
		t = append(t, b1...)
		copy(b, t)
	}
	sort(a)
	return a
}

// .BTF_ids, as include/linux/btf_ids.h lays it out and pahole 1.30 reads it.
const (
	btfIDsSection = ".BTF_ids"
	btfIDFuncPfx  = "__BTF_ID__func__"
	btfIDSet8Pfx  = "__BTF_ID__set8__"
	btfSet8Kfuncs = 1 << 0
	kfFastcall    = 1 << 12
)

// markKfuncs is pahole 1.30's btf_encoder__collect_kfuncs: the functions
// whose __BTF_ID__func__ symbol lies in a BTF_SET8 flagged as a kfunc set
// are kfuncs, with the flags of the (id, flags) pair at that symbol. ids
// is .BTF_ids's contents and addr its sh_addr, idx its section index.
func (t *elfFuncs) markKfuncs(syms []elf.Symbol, ids []byte, idx int, addr uint64, order interface{ Uint32([]byte) uint32 }) {
	type span struct{ start, end uint64 }
	var sets []span
	for _, s := range syms {
		if int(s.Section) != idx || !strings.HasPrefix(s.Name, btfIDSet8Pfx) {
			continue
		}
		off := s.Value - addr
		if off >= uint64(len(ids)) || uint64(len(ids))-off < 8 {
			continue
		}
		if order.Uint32(ids[off+4:])&btfSet8Kfuncs != 0 {
			sets = append(sets, span{s.Value, s.Value + s.Size})
		}
	}
	for _, s := range syms {
		if int(s.Section) != idx {
			continue
		}
		name, ok := btfIDFuncName(s.Name)
		if !ok {
			continue
		}
		for _, r := range sets {
			if r.start <= s.Value && s.Value < r.end {
				off := s.Value - addr
				if off >= uint64(len(ids)) || uint64(len(ids))-off < 8 {
					break
				}
				if i := t.find([]byte(name), 0); i >= 0 {
					t.funcs[i].kfunc = true
					t.funcs[i].flags = order.Uint32(ids[off+4:])
				}
				break
			}
		}
	}
}

// btfIDFuncName is pahole's get_func_name: vfs_close from
// __BTF_ID__func__vfs_close__1.
func btfIDFuncName(sym string) (string, bool) {
	rest, ok := strings.CutPrefix(sym, btfIDFuncPfx)
	if !ok || !strings.Contains(rest, "__") {
		return "", false
	}
	end := strings.LastIndexByte(rest, '_')
	if end < 1 || rest[end-1] != '_' {
		return "", false
	}
	return rest[:end-1], true
}
