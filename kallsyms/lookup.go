package kallsyms

import (
	"slices"
	"unsafe"
)

// find returns the symbol with the greatest start <= a; among symbols with
// equal starts, the first in file order. ok is false when every symbol
// starts above a. In a table that is not wide, it reads one block: the
// index names it, and its header holds the next block's first entry too.
//
// Guarded by BenchmarkKallsyms/LookupAppend.
func (t *table) find(a uint64) (hit, bool) {
	if t.n == 0 || a < t.base {
		return hit{}, false
	}
	if t.wide != nil || a-t.base >= padAddr {
		// (only the last block's padding compares above such offsets)
		return t.findWide(a)
	}
	o := uint32(a - t.base)
	var lo int // the data offset of the block holding o's entry
	if k := int(o >> t.shift); k < len(t.index) && t.index[k]&denseBit == 0 {
		// the common case: a bucket of the index that is not dense
		e := t.index[k]
		lo = int(t.offs[e&blockMask+uint32(b2u(o&(1<<t.shift-1) >= e>>splitOff&noSplit))])
	} else {
		lo = t.searchBlock(o)
	}
	h := t.hdr(lo).ptr()
	x := uint64(o)<<32 | uint64(o) | lanes
	s := countHalf(h, 0, x) + countHalf(h, 24, x)
	c := uintptr(s&0xff + s>>32) // slots <= o; each lane sums to at most 6
	// Slot c holds the first entry above o: this block's, or the next
	// block's first for c == nextSlot (padding: no pfx).
	at, bound := load32(h, 4*c), load32(h, endsOff+2*c)
	// Whether o is in the hidden __pfx_ symbol before that entry, tested
	// with one well-predicted branch: the pfx flag alone is a coin flip. A
	// pfx entry's offset is >= pfxGap (see builder.add).
	j := int(load32(h, numOff))*markStride + int(c)
	if b2u(bound&(pfxFlag<<16) != 0)&b2u(o >= at-pfxGap) != 0 {
		if c == nextSlot {
			return t.hitAt(j, true), true
		}
		return hit{idx: j, name: uint64(lo)<<16 + nameLoc(bound), pfx: true, start: t.base + uint64(at-pfxGap)}, true
	}
	if c == 0 { // only in block 0: every entry is above o
		return hit{}, false
	}
	// Entry j-1 is the answer unless the entry before it has its address.
	at, bound = load32(h, 4*c-4), load32(h, endsOff+2*c-2)
	if c > 1 && load32(h, 4*c-8) == at || c == 1 && bound&dupFlag != 0 {
		return t.firstAt(j - 1), true
	}
	return hit{idx: j - 1, name: uint64(lo)<<16 + nameLoc(bound), start: t.base + uint64(at)}, true
}

// searchBlock returns the data offset of the block that holds the last
// entry at or below o, or of block 0 when every entry is above o, where
// find's index lookup does not: in a table without an index, in a dense
// bucket, or above the last bucket.
func (t *table) searchBlock(o uint32) int {
	if t.index == nil {
		return t.searchBlocks(0, len(t.offs)-1, o)
	}
	k := min(int(o>>t.shift), len(t.index)-1)
	e := t.index[k]
	b := int(e & blockMask)
	if e&denseBit != 0 { // the blocks that start in the bucket, and b
		hi := len(t.offs) - 1
		if k+1 < len(t.index) {
			hi = int(t.index[k+1] & blockMask)
		}
		return t.searchBlocks(b, hi, o)
	}
	// (only the last bucket holds offsets beyond its 1<<shift bytes)
	local := min(o-uint32(k)<<t.shift, 1<<t.shift-1)
	b += int(b2u(local >= e>>splitOff&noSplit)) // noSplit > 1<<maxShift
	return int(t.offs[b])
}

// nameLoc returns where the name between the two bounds in b lies in its
// block, as header.name does: its block offset << 16 | its length.
func nameLoc(b uint32) uint64 {
	start, end := b&endMask, b>>16&endMask
	return uint64(start)<<16 | uint64(end-start)
}

// lanes marks bit 31 of each 32-bit lane.
const lanes = 1<<63 | 1<<31

// countHalf counts in each lane the addresses <= o among the six at
// byte offset i of the header at h, for x holding o | 1<<31 in both lanes.
// It compares two addresses at a time without branches, with SWAR
// arithmetic: addresses and o are below 1<<31, so in (o | 1<<31) - a, per
// 32-bit lane, bit 31 survives exactly when a <= o. find adds the counts
// of a header's two halves to get the number of its addresses <= o
// (addresses are sorted and the padding is above o).
func countHalf(h unsafe.Pointer, i uintptr, x uint64) uint64 {
	return (x-load64(h, i))&lanes>>31 + (x-load64(h, i+8))&lanes>>31 +
		(x-load64(h, i+16))&lanes>>31
}

// findWide is find for a wide table, or for an address above every entry
// of a narrow one.
func (t *table) findWide(a uint64) (hit, bool) {
	j := t.n // the first entry whose address is > a
	if t.wide != nil {
		j = t.upperWide(a)
	}
	if j < t.n && t.pfxAt(j) && a >= t.addr(j)-pfxGap {
		return t.hitAt(j, true), true
	}
	if j == 0 {
		return hit{}, false
	}
	return t.firstAt(j - 1), true
}

// firstAt returns the hit of the first entry with the address of entry i.
func (t *table) firstAt(i int) hit {
	at := t.addr(i)
	for i > 0 && t.addr(i-1) == at {
		i--
	}
	return t.hitAt(i, false)
}

// searchBlocks returns the data offset of the last of blocks [lo, hi]
// whose first address is <= o (block lo if none).
func (t *table) searchBlocks(lo, hi int, o uint32) int {
	for lo < hi {
		m := int(uint(lo+hi+1) >> 1)
		if t.hdr(int(t.offs[m])).addr(0) <= o {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return int(t.offs[lo])
}

// upperWide returns the index of the first entry whose address is > a, in
// a wide table.
func (t *table) upperWide(a uint64) int {
	i, found := slices.BinarySearch(t.wide, a)
	for found && i < len(t.wide) && t.wide[i] == a {
		i++
	}
	return i
}

// b2u returns 1 for true and 0 for false, without a branch.
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}

// symbolName returns the name of the symbol h as a new string.
//
// Guarded by BenchmarkKallsyms/Lookup.
func (t *table) symbolName(h hit) string {
	prefix := ""
	if h.pfx {
		prefix = pfxPrefix
	}
	return names.decode(prefix, t.encName(h), t.plain)
}

// appendName appends the name of the symbol h to dst.
//
// Guarded by BenchmarkKallsyms/LookupAppend.
func (t *table) appendName(dst []byte, h hit) []byte {
	if h.pfx {
		dst = append(dst, pfxPrefix...)
	}
	if !t.plain {
		return names.appendDecoded(dst, t.encName(h))
	}
	return names.appendPlain(dst, t.encName(h))
}

// typeOf returns the kallsyms type letter of h, or 0 without Options.Data.
func (t *table) typeOf(h hit) byte {
	if t.types == nil || h.idx < 0 {
		return 0
	}
	return t.types[h.idx]
}
