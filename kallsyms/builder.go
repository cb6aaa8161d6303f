package kallsyms

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// builder collects the symbols of one module while the input is parsed and
// turns them into a table. It is used by one goroutine.
type builder struct {
	name   string
	data   bool // keep type letters
	addrs  chunks[uint64]
	meta   []uint8
	offs   []uint32 // blob offset of the name of every markStride-th entry
	blob   chunks[byte]
	name1  []byte // scratch for one encoded name
	types  []byte
	hidden int
	sorted bool

	// A __pfx_ symbol is held back until the next line shows whether it
	// can be hidden in front of its function.
	pend     bool
	pendAddr uint64
	pendType byte
	pendName []byte // the full name, "__pfx_" included

	enc encoder
}

func newBuilder(name string, data bool) *builder {
	return &builder{name: name, data: data, sorted: true,
		addrs: newChunks[uint64](12), blob: newChunks[byte](16)}
}

// add records one symbol, in file order. name is not retained.
//
// Guarded by BenchmarkKallsyms/Load.
func (b *builder) add(addr uint64, typ byte, name []byte) {
	if b.pend {
		suffix := b.pendName[len(pfxPrefix):]
		if addr == b.pendAddr+pfxGap && typ == b.pendType && bytes.Equal(name, suffix) &&
			(b.addrs.len() == 0 || b.addrs.last() < b.pendAddr) {
			b.pend = false
			b.push(addr, typ, name, pfxBit)
			b.hidden++
			return
		}
		b.flush()
	}
	if bytes.HasPrefix(name, []byte(pfxPrefix)) {
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
		b.push(b.pendAddr, b.pendType, b.pendName, 0)
	}
}

// push stores one entry. Its encoded name goes straight into the blob; a
// uvarint length is inserted before it only for long or escaped names.
//
// Guarded by BenchmarkKallsyms/Load.
func (b *builder) push(addr uint64, typ byte, name []byte, flags uint8) {
	if n := b.addrs.len(); n > 0 && addr < b.addrs.last() {
		b.sorted = false
	}
	if b.addrs.len()%markStride == 0 {
		b.offs = append(b.offs, uint32(b.blob.len()))
	}
	enc, esc := b.enc.appendEncoded(b.name1[:0], name)
	b.name1 = enc
	if n := len(enc); n < lenEscape && !esc {
		flags |= uint8(n)
	} else {
		var hdr [binary.MaxVarintLen64]byte
		b.blob.addAll(hdr[:binary.PutUvarint(hdr[:], uint64(n))])
		flags |= lenEscape
	}
	b.blob.addAll(enc)
	b.addrs.add(addr)
	b.meta = append(grow(b.meta, 1), flags)
	if b.data {
		b.types = append(grow(b.types, 1), typ)
	}
}

// grow makes room for n more elements in s, doubling its capacity when it
// must grow: append's 1.25x growth of large slices would allocate and copy
// about five times the final size while a big module is parsed.
func grow[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, len(s), 256))
}

// finish returns the module's table. The builder must not be used again.
func (b *builder) finish() *table {
	b.flush()
	if !b.sorted {
		return b.resorted()
	}
	n := b.addrs.len()
	t := &table{name: b.name, hidden: b.hidden, n: n}
	t.blob = b.blob.flat()
	if b.data {
		t.types = slices.Clone(b.types)
	}
	if n == 0 {
		return t
	}
	t.base = b.addrs.at(0)
	if b.meta[0]&pfxBit != 0 {
		t.base -= pfxGap
	}
	if b.addrs.last()-t.base >= 1<<32 {
		t.wide = b.addrs.flat()
	}
	t.blocks = make([]block, (n+markStride-1)/markStride)
	for i := range n {
		a, blk := b.addrs.at(i), &t.blocks[i/markStride]
		if i%markStride == 0 {
			blk.off = b.offs[i/markStride]
		}
		blk.meta[i%markStride] = b.meta[i]
		if t.wide == nil {
			blk.addrs[i%markStride] = uint32(a - t.base)
		}
	}
	last := &t.blocks[len(t.blocks)-1]
	for i := n % markStride; i > 0 && i < markStride; i++ {
		last.addrs[i] = padAddr
	}
	if t.wide == nil {
		t.buildIndex()
	}
	return t
}

// buildIndex adds a bucket index to a table of more than four blocks (and
// fewer than 1<<16), with about four buckets per block, so that most
// lookups go straight from their bucket to their block.
func (t *table) buildIndex() {
	nb := len(t.blocks)
	if nb <= 4 || nb > 1<<16 {
		return
	}
	span := t.addr(t.n-1) - t.base
	var shift uint8
	for span>>shift >= uint64(4*nb) {
		shift++
	}
	t.shift = shift
	t.index = make([]uint16, span>>shift+1)
	b := 0
	for k := range t.index {
		for b+1 < nb && uint64(t.blocks[b+1].addrs[0]) <= uint64(k)<<shift {
			b++
		}
		t.index[k] = uint16(b)
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
	syms := make([]sym, 0, b.addrs.len()+b.hidden)
	tb, off := table{blob: b.blob.flat()}, 0
	for i, a := range b.addrs.flat() {
		name := names.decode("", tb.nameAt(off, b.meta[i]), b.meta[i]&lenMask != lenEscape)
		off = tb.skip(off, b.meta[i])
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
		nb.add(s.addr, s.typ, []byte(s.name))
	}
	return nb.finish()
}
