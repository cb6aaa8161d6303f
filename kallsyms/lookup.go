package kallsyms

import (
	"encoding/binary"
	"slices"
)

// find returns the symbol with the greatest start <= a; among symbols with
// equal starts, the first in file order. ok is false when every symbol
// starts above a. In a table that is not wide, it works on the one block
// that holds the answer, with few and well-predicted branches.
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
	lo := 0 // the data offset of a block whose first address <= o
	if t.index == nil {
		lo = t.searchBlocks(0, len(t.offs)-1, o)
	} else {
		e := t.index[min(int(o>>t.shift), len(t.index)-1)]
		if lo = int(e & offMask); e&denseBit != 0 {
			lo = t.searchBlocks(t.hdr(lo).num(), len(t.offs)-1, o)
		}
	}
	h := t.hdr(lo)
	x := uint64(o)<<32 | uint64(o) | lanes // count(h, o), inlined
	s := countHalf(h, 0, x) + countHalf(h, 24, x)
	c, num := int(s&0xff+s>>32), h.num()
	if c == markStride && num+1 < len(t.offs) {
		// At most one block boundary lies between lo and o (the index is
		// not dense there): o may be in the next block.
		if next := int(t.offs[num+1]); t.hdr(next).addr(0) <= o {
			lo, h, num = next, t.hdr(next), num+1
			c = count(h, o)
		}
	}
	// Entry j is slot c of h, or slot 0 of the next block.
	nh, no, ns := h, lo, c
	if c == markStride && num+1 < len(t.offs) {
		no, ns = int(t.offs[num+1]), 0
		nh = t.hdr(no)
	}
	j := num*markStride + c // the first entry above o (padding: no pfx)
	var pfx bool
	var at uint32
	if ns < markStride {
		pfx, at = nh.pfx(ns), nh.addr(ns)
	}
	// Whether o is in the hidden __pfx_ symbol before entry j, tested with
	// one well-predicted branch: the pfx flag alone is a coin flip. A pfx
	// entry's offset is >= pfxGap (see builder.add).
	if b2u(pfx)&b2u(o >= at-pfxGap) != 0 {
		return hit{idx: j, name: nh.name(no, ns), pfx: true, start: t.base + uint64(at-pfxGap)}, true
	}
	if c == 0 { // only in block 0: every entry is above o
		return hit{}, false
	}
	if at = h.addr(c - 1); c > 1 && h.addr(c-2) != at {
		return hit{idx: j - 1, name: h.name(lo, c-1), start: t.base + uint64(at)}, true
	}
	return t.firstAt(j - 1), true
}

// count returns the number of h's addresses <= o: addresses are sorted
// and the padding is above o. It compares two addresses at a time without
// branches, with SWAR arithmetic: addresses and o are below 1<<31, so in
// (o | 1<<31) - a, per 32-bit lane, bit 31 survives exactly when a <= o.
// (It is split in two halves that the compiler inlines.)
func count(h *header, o uint32) int {
	x := uint64(o)<<32 | uint64(o) | lanes
	s := countHalf(h, 0, x) + countHalf(h, 24, x)
	return int(s&0xff + s>>32) // each lane sums to at most 6
}

// lanes marks bit 31 of each 32-bit lane.
const lanes = 1<<63 | 1<<31

// countHalf counts in each lane the addresses <= o among the six at
// h[i:i+24], for x holding o | 1<<31 in both lanes.
func countHalf(h *header, i int, x uint64) uint64 {
	return (x-binary.LittleEndian.Uint64(h[i:]))&lanes>>31 +
		(x-binary.LittleEndian.Uint64(h[i+8:]))&lanes>>31 +
		(x-binary.LittleEndian.Uint64(h[i+16:]))&lanes>>31
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
