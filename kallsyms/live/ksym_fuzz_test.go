package live

import (
	"cmp"
	"errors"
	"slices"
	"testing"

	"github.com/kmeta-dev/kmeta/kallsyms"
)

// FuzzKsymPatch applies a stream of add and remove events, decoded from
// the fuzzer's bytes, to a live set and checks every lookup of the table
// it builds against a model: the symbol with the greatest start at or
// below an address holds it up to its length (when known) or up to the
// next symbol; past its length, before the next symbol, nothing does.
// Names are arbitrary bytes.
func FuzzKsymPatch(f *testing.F) {
	f.Add([]byte{0, 1, 0, 20, 'a', 0, 2, 0, 20, 'b', 1, 1, 0, 20, 'a'})
	f.Add([]byte{0, 1, 0, 0, 'x', 0, 1, 0x80, 0, 'y', 0, 0xff, 0xff, 0xff, 'z'})
	f.Fuzz(func(t *testing.T, b []byte) {
		const base = 0xffffffffc0000000
		var l liveSyms
		l.reset(nil, 0)
		type sym struct {
			name string
			addr uint64
			size uint32
		}
		model := map[uint64]sym{}
		for i := 0; len(b) >= 5; i++ {
			op, off, size, n := b[0], uint64(b[1])<<8|uint64(b[2]), uint32(b[3]), int(b[4]%8)+1
			b = b[5:]
			n = min(n, len(b))
			name := string(b[:n])
			b = b[n:]
			addr := base + off*4
			if op&0x80 != 0 {
				addr += 1 << 31 // a wide table
			}
			ev := KsymEvent{Op: KsymAdd, Type: KsymTypeBPF, Name: name, Addr: addr, Len: size, Time: uint64(i + 1)}
			if op&1 != 0 {
				ev.Op = KsymRemove
			}
			l.apply(&ev)
			switch {
			case name == "":
			case ev.Op == KsymRemove:
				delete(model, addr)
			default:
				model[addr] = sym{name, addr, size}
			}
		}
		s := new(kallsyms.Snapshot).WithSymbols(kallsyms.BPF, l.symbols())
		syms := make([]sym, 0, len(model))
		for _, m := range model {
			syms = append(syms, m)
		}
		slices.SortFunc(syms, func(a, b sym) int { return cmp.Compare(a.addr, b.addr) })
		check := func(a uint64) {
			want := ""
			if k, found := slices.BinarySearchFunc(syms, a, func(s sym, a uint64) int { return cmp.Compare(s.addr, a) }); found || k > 0 {
				if !found {
					k--
				}
				p := syms[k]
				end := p.addr + uint64(p.size)
				switch {
				case p.size > 0 && a >= end && (k+1 == len(syms) || syms[k+1].addr > end):
				case p.size == 0 && k+1 == len(syms) && a >= p.addr|0xfff+1 /* the end of its page */ :
				default:
					want = p.name
				}
			}
			got, err := s.Lookup(a)
			if want == "" && err == nil || want != "" && (err != nil || got.Name != want || got.Module != kallsyms.BPF) {
				t.Fatalf("Lookup(%#x) = %+v, %v; want %q (symbols %+v)", a, got, err, want, syms)
			}
			if err != nil && !errors.Is(err, kallsyms.ErrNotFound) {
				t.Fatalf("Lookup(%#x): %v", a, err)
			}
		}
		for _, p := range syms {
			for _, d := range []uint64{0, 1, uint64(p.size) - 1, uint64(p.size), uint64(p.size) + 1, 0x1000} {
				check(p.addr + d)
			}
			check(p.addr - 1)
		}
		if got := s.Stats().Symbols; got != len(syms) {
			t.Fatalf("%d symbols, want %d", got, len(syms))
		}
	})
}
