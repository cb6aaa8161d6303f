package dwarf2btf

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"iter"
	"slices"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/btfids"
)

// elfFunc is one STT_FUNC symbol in pahole 1.30's table of ELF functions
// (struct elf_function): name, the length of its part before the first
// '.', and whether .BTF_ids lists it as a kfunc.
type elfFunc struct {
	name      string
	prefixLen int
	kfunc     bool
	flags     uint32 // its BTF_SET8 pair's flags
	// head and prefixHead are nameHead of the name and of its part
	// before the first '.', for find.
	head, prefixHead uint64
}

// nameHead is the first 8 bytes of s as a big-endian number, 0 past its
// end: for strings without NUL bytes, two different heads order the
// strings as strings.Compare does, without reading them.
func nameHead(s string) uint64 {
	var b [8]byte
	copy(b[:], s)
	return binary.BigEndian.Uint64(b[:])
}

// elfFuncs is the table, sorted as pahole sorts it.
type elfFuncs struct {
	funcs     []elfFunc
	suffixCnt int // names with a '.'
	// known is a filter of the names find can match: every function's
	// name and its part before the first '.'. Most names the encoder
	// looks up (inline functions) have no ELF function, and their clear
	// bit spares the search.
	known nameFilter
}

// newElfFuncs is pahole 1.30's elf_functions__collect: every STT_FUNC
// symbol, in symbol table order, then sorted by functions_cmp with glibc's
// qsort (a stable merge sort; functions_cmp is not a total order, so the
// algorithm shows in the result).
func newElfFuncs(syms iter.Seq2[int, elf.Symbol]) *elfFuncs {
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
		f.head, f.prefixHead = nameHead(f.name), nameHead(f.name[:f.prefixLen])
		t.funcs = append(t.funcs, f)
	}
	order := msort(len(t.funcs), func(i, j int) int { return functionsCmp(&t.funcs[i], &t.funcs[j]) })
	sorted := make([]elfFunc, len(t.funcs))
	for i, k := range order {
		sorted[i] = t.funcs[k]
	}
	t.funcs = sorted
	t.known = newNameFilter(len(t.funcs))
	for _, f := range t.funcs {
		t.known.add(f.name)
		t.known.add(f.name[:f.prefixLen])
	}
	return t
}

// functionsCmp is pahole's functions_cmp: with equal non-zero prefix
// lengths, only the prefixes count. The names' heads decide without
// reading the names when they differ.
func functionsCmp(a, b *elfFunc) int {
	if a.prefixLen != 0 && a.prefixLen == b.prefixLen {
		if a.prefixHead != b.prefixHead {
			return cmp.Compare(a.prefixHead, b.prefixHead)
		}
		return strncmp(a.name, b.name, b.prefixLen)
	}
	if a.head != b.head {
		return cmp.Compare(a.head, b.head)
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
	// With either prefix length, functionsCmp is 0 only for a function
	// whose name, or whose part before the first '.', is name.
	if !t.known.mayHold(key.name) {
		return -1
	}
	key.head, key.prefixHead = nameHead(key.name), nameHead(key.name[:prefixLen])
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
// are kfuncs, with the flags of the (id, flags) pair at that symbol, as
// kfuncPairs reads them.
func (t *elfFuncs) markKfuncs(k *kfuncInfo) {
	// pahole walks the symbols in their table's order.
	bySym := make([]int, len(k.pairs))
	for i := range bySym {
		bySym[i] = i
	}
	slices.SortStableFunc(bySym, func(a, b int) int { return k.sym[a] - k.sym[b] })
	for _, j := range bySym {
		p := k.pairs[j]
		if i := t.find([]byte(p.Name), 0); i >= 0 {
			t.funcs[i].kfunc = true
			t.funcs[i].flags = p.Flags
		}
	}
}

// kfuncInfo is what .BTF_ids says of the kfuncs: every (function, flags)
// pair of the kfunc sets, set by set in descending order of set names (as
// resolve_btfids walks them), pairs in section order.
type kfuncInfo struct {
	pairs []btfids.Kfunc
	sym   []int // each pair's symbol's index in the symbol table
}

type btfIDSym struct {
	addr uint64
	size uint64
	name string
}

// kfuncPairs reads the kfunc sets of .BTF_ids. The flags of a pair are
// those the build saw: a -dbg file holds the section as linked, after
// resolve_btfids sorted each set's pairs by BTF id, so that the pair at a
// function's symbol is another function's; when the ids are filled in and
// the file's own .BTF names them, each symbol gets the flags of the pair
// whose id names its function. base is the base of the file's .BTF (a
// module's). asLinked reads the pairs as the file holds them, as pahole
// does (Options.AsLinked).
func (o *object) kfuncPairs(base *btf.Spec, asLinked bool) *kfuncInfo {
	k := &kfuncInfo{}
	if o.btfIDsIdx == 0 || o.symtab == nil {
		return k
	}
	var sets []btfIDSym
	type funcSym struct {
		name string
		idx  int
	}
	funcs := map[uint64]funcSym{}
	for i, s := range o.symtab.all() {
		if int(s.Section) != o.btfIDsIdx {
			continue
		}
		if name, ok := strings.CutPrefix(s.Name, btfIDSet8Pfx); ok && name != "" {
			sets = append(sets, btfIDSym{s.Value, s.Size, name})
		} else if name, ok := btfIDFuncName(s.Name); ok {
			funcs[s.Value] = funcSym{name, i}
		}
	}
	slices.SortStableFunc(sets, func(a, b btfIDSym) int { return strings.Compare(b.name, a.name) })
	var spec *btf.Spec
	if len(o.btfSec) > 0 && !asLinked {
		spec, _ = btf.Parse(o.btfSec, btf.Options{Base: base})
	}
	ids := o.btfIDs
	word := func(addr uint64) (uint32, bool) {
		off := addr - o.btfIDsAddr
		if addr < o.btfIDsAddr || off >= uint64(len(ids)) || uint64(len(ids))-off < 4 {
			return 0, false
		}
		return o.order.Uint32(ids[off:]), true
	}
	for _, set := range sets {
		flags, ok := word(set.addr + 4)
		if !ok || flags&btfSet8Kfuncs == 0 || set.size < 8 {
			continue
		}
		n := set.size/8 - 1
		// The flags of each function named by a pair's id, when the
		// ids are filled in.
		byName := map[string]uint32{}
		for i := range n {
			id, _ := word(set.addr + 8 + 8*i)
			f, _ := word(set.addr + 12 + 8*i)
			if id == 0 || spec == nil {
				continue
			}
			if t, err := spec.TypeByID(btf.TypeID(id)); err == nil && t.Kind() == btf.KindFunc {
				byName[t.Name()] = f
			}
		}
		for i := range n {
			addr := set.addr + 8 + 8*i
			fs, ok := funcs[addr]
			if !ok {
				continue
			}
			f, ok := byName[fs.name]
			if !ok {
				f, _ = word(addr + 4)
			}
			k.pairs = append(k.pairs, btfids.Kfunc{Name: fs.name, Flags: f})
			k.sym = append(k.sym, fs.idx)
		}
	}
	return k
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
