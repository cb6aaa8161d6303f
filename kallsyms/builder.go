package kallsyms

import (
	"encoding/binary"
	"slices"
	"strings"
)

// builder collects the symbols of one module while the input is parsed and
// turns them into a table. It is used by one goroutine.
type builder struct {
	name   string
	data   bool // keep type letters
	addrs  []uint64
	meta   []uint8
	offs   []uint32 // blob offset of each entry's name
	blob   []byte
	types  []byte
	hidden int
	sorted bool

	// A __pfx_ symbol is held back until the next line shows whether it
	// can be hidden in front of its function.
	pend     bool
	pendAddr uint64
	pendType byte
	pendName []byte // the full name, "__pfx_" included
}

func newBuilder(name string, data bool) *builder {
	return &builder{name: name, data: data, sorted: true}
}

// add records one symbol, in file order.
//
// Guarded by BenchmarkKallsyms/Load.
func (b *builder) add(addr uint64, typ byte, name string) {
	if b.pend {
		suffix := b.pendName[len(pfxPrefix):]
		if addr == b.pendAddr+pfxGap && typ == b.pendType && name == string(suffix) &&
			(len(b.addrs) == 0 || b.addrs[len(b.addrs)-1] < b.pendAddr) {
			b.pend = false
			b.push(addr, typ, name, pfxBit)
			b.hidden++
			return
		}
		b.flush()
	}
	if strings.HasPrefix(name, pfxPrefix) {
		b.pend, b.pendAddr, b.pendType = true, addr, typ
		b.pendName = append(b.pendName[:0], name...)
		return
	}
	b.push(addr, typ, name, 0)
}

// flush stores a held-back __pfx_ symbol as an ordinary entry.
func (b *builder) flush() {
	if b.pend {
		b.pend = false
		b.push(b.pendAddr, b.pendType, string(b.pendName), 0)
	}
}

func (b *builder) push(addr uint64, typ byte, name string, flags uint8) {
	if n := len(b.addrs); n > 0 && addr < b.addrs[n-1] {
		b.sorted = false
	}
	start := len(b.blob)
	b.offs = append(b.offs, uint32(start))
	b.blob = append(b.blob, 0) // room for a one-byte uvarint
	b.blob = names.appendEncoded(b.blob, name)
	n := len(b.blob) - start - 1
	if n < lenEscape && !hasEscape(name) {
		copy(b.blob[start:], b.blob[start+1:])
		b.blob = b.blob[:len(b.blob)-1]
		flags |= uint8(n)
	} else {
		var hdr [binary.MaxVarintLen64]byte
		k := binary.PutUvarint(hdr[:], uint64(n))
		b.blob = slices.Insert(b.blob, start+1, hdr[1:k]...)
		copy(b.blob[start:], hdr[:k])
		flags |= lenEscape
	}
	b.addrs = append(b.addrs, addr)
	b.meta = append(b.meta, flags)
	if b.data {
		b.types = append(b.types, typ)
	}
}

// hasEscape reports whether name has bytes that encode as escapes.
func hasEscape(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] >= 0x80 {
			return true
		}
	}
	return false
}

// finish returns the module's table. The builder must not be used again.
func (b *builder) finish() *table {
	b.flush()
	if !b.sorted {
		return b.resorted()
	}
	n := len(b.addrs)
	t := &table{name: b.name, hidden: b.hidden, n: n}
	t.blob = slices.Clone(b.blob)
	if b.data {
		t.types = slices.Clone(b.types)
	}
	if n == 0 {
		return t
	}
	t.base = b.addrs[0]
	if b.meta[0]&pfxBit != 0 {
		t.base -= pfxGap
	}
	if b.addrs[n-1]-t.base >= 1<<32 {
		t.wide = slices.Clone(b.addrs)
	}
	t.blocks = make([]block, (n+markStride-1)/markStride)
	for i, a := range b.addrs {
		blk := &t.blocks[i/markStride]
		if i%markStride == 0 {
			blk.off = b.offs[i]
		}
		blk.meta[i%markStride] = b.meta[i]
		if t.wide == nil {
			blk.addrs[i%markStride] = uint32(a - t.base)
		}
	}
	if t.wide == nil {
		t.buildIndex()
	}
	return t
}

// buildIndex adds a bucket index to a table of more than 64 entries, with
// buckets sized so that there are about four entries per bucket.
func (t *table) buildIndex() {
	n := t.n
	if n <= 64 {
		return
	}
	span := t.addr(n-1) - t.base
	var shift uint8
	for span>>shift > uint64(n/4) {
		shift++
	}
	t.shift = shift
	t.index = make([]uint32, span>>shift+1)
	i := 0
	for k := range t.index {
		for i < n && t.addr(i)-t.base < uint64(k)<<shift {
			i++
		}
		t.index[k] = uint32(i)
	}
}

// resorted builds the table of a module whose symbols were not listed in
// address order (module symbols come in symbol-table order): it decodes
// them, sorts them stably by address and adds them again.
func (b *builder) resorted() *table {
	type sym struct {
		addr uint64
		typ  byte
		name string
	}
	syms := make([]sym, 0, len(b.addrs)+b.hidden)
	for i, a := range b.addrs {
		off := int(b.offs[i])
		tb := table{blob: b.blob}
		name := names.decode("", tb.nameAt(off, b.meta[i]), b.meta[i]&lenMask != lenEscape)
		var typ byte
		if b.data {
			typ = b.types[i]
		}
		if b.meta[i]&pfxBit != 0 {
			syms = append(syms, sym{a - pfxGap, typ, pfxPrefix + name})
		}
		syms = append(syms, sym{a, typ, name})
	}
	slices.SortStableFunc(syms, func(x, y sym) int {
		switch {
		case x.addr < y.addr:
			return -1
		case x.addr > y.addr:
			return 1
		}
		return 0
	})
	nb := newBuilder(b.name, b.data)
	for _, s := range syms {
		nb.add(s.addr, s.typ, s.name)
	}
	return nb.finish()
}
