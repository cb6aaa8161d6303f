package kallsyms

import (
	"cmp"
	"math"
	"slices"
)

// resorted builds the table of a module whose symbols were not listed in
// address order (module symbols come in symbol-table order), or whose
// non-text symbols were not (see textEnds.late): it adds them again, in
// a stable sort by address, to a new builder, with every non-text address
// seen.
//
// What is sorted is an index of the symbols, not the symbols: a 4-byte
// number for each (8 bytes past 2^32 of them), read in place from b's
// storage. A copy of the symbols with their names decoded held two to
// three times the builder's size beside it, which broke ksym's memory
// rule on descending addresses (BENCH.md).
func (b *builder) resorted() *table {
	if uint64(2*b.addrs.len()+b.text.stops.len()) <= math.MaxUint32 {
		return resortBy[uint32](b)
	}
	return resortBy[uint64](b)
}

// A symbol's position in the sort is a number of type I: 2i for the
// hidden __pfx_ symbol of entry i, 2i+1 for entry i itself, and 2n+j for
// the j-th non-text address of n entries. These numbers are in input
// order, so comparing them breaks ties between equal addresses as a
// stable sort does.
func resortBy[I uint32 | uint64](b *builder) *table {
	n := I(b.addrs.len())
	order := make([]I, 0, b.addrs.len()+b.hidden+b.text.stops.len())
	for i := range b.addrs.len() {
		if b.meta[i]&lenMask == 0 { // an anonymous end of text: stops has its address
			continue
		}
		if b.meta[i]&pfxBit != 0 {
			order = append(order, 2*I(i))
		}
		order = append(order, 2*I(i)+1)
	}
	for j := range b.text.stops.len() {
		order = append(order, 2*n+I(j))
	}
	addr := func(v I) uint64 {
		switch {
		case v >= 2*n:
			return b.text.stops.at(int(v - 2*n))
		case v&1 == 0:
			return b.addrs.at(int(v/2)) - pfxGap
		}
		return b.addrs.at(int(v / 2))
	}
	slices.SortFunc(order, func(x, y I) int {
		if c := cmp.Compare(addr(x), addr(y)); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	nb := newBuilder(b.name, b.data)
	nb.arena = b.arena
	var enc, name, pfxName []byte
	for _, v := range order {
		if v >= 2*n {
			nb.stop(addr(v))
			continue
		}
		i := int(v / 2)
		enc = b.encodedName(enc[:0], i)
		name = b.codec.appendDecoded(name[:0], enc)
		sym := name
		if v&1 == 0 {
			pfxName = append(append(pfxName[:0], pfxPrefix...), name...)
			sym = pfxName
		}
		var typ byte
		if b.data {
			typ = b.types[i]
		}
		nb.add(addr(v), typ, sym)
	}
	order = nil
	b.drop()
	t := nb.finish()
	nb.release()
	return t
}

// encodedName appends the encoded name of entry i to dst: the block that
// holds the entry records where its first name starts in the blob, and
// the names before i in the block are skipped.
func (b *builder) encodedName(dst []byte, i int) []byte {
	k, _ := slices.BinarySearchFunc(b.blocks, i+1, func(s blockStart, e int) int { return cmp.Compare(int(s.entry), e) })
	s := b.blocks[k-1]
	off := int(s.blob)
	for j := int(s.entry); ; j++ {
		l := int(b.meta[j] & lenMask)
		if l == lenEscape {
			v, w := b.uvarintAt(off)
			off, l = off+w, int(v)
		}
		if j == i {
			return b.blob.appendRange(dst, off, off+l)
		}
		off += l
	}
}

// drop lets the collector have b's storage (not the pools: nothing of
// this load takes it again); b may only be released after.
func (b *builder) drop() {
	b.addrs = newChunks[uint64](b.addrs.shift, b.addrs.pool)
	b.blob = newChunks[byte](b.blob.shift, b.blob.pool)
	b.text.stops = newChunks[uint64](b.text.stops.shift, b.text.stops.pool)
	b.meta, b.blocks, b.types = nil, nil, nil
}
