package kallsyms

import (
	"slices"
	"unsafe"
)

// find returns the symbol with the greatest start <= a; among symbols with
// equal starts, the first in file order. ok is false when every symbol
// starts above a. In a table that is not wide, it reads the index and one
// header, and nothing else: the index names the block, whose start is at
// or below the address and whose next block's start is above it.
func (t *table) find(a uint64) (hit, bool) {
	if a-t.base >= t.narrow { // (below base, an empty or wide table, or beyond)
		return t.findWide(a)
	}
	o := uint32(a - t.base)
	var b int          // the block holding o's entry
	sh := t.shift & 31 // (<= maxShift: the mask only spares a shift's range check)
	if k := int(o >> sh); k < len(t.index) && t.index[k]&denseBit == 0 {
		// the common case: a bucket of the index that is not dense
		e := t.index[k]
		b = int(e&blockMask + uint32(b2u(o&(1<<sh-1) >= e>>splitOff&noSplit)))
	} else {
		b = t.searchBlock(o)
	}
	// b < t.nblocks(): the index and searchBlock name existing blocks.
	h := unsafe.Add(unsafe.Pointer(unsafe.SliceData(t.hdrs)), b*hdrSize)
	start := load32(h, startOff)
	x := min(o-start, laneMax) // beyond laneMax: past every entry
	c := countLanes(h, x)      // the entries at or below o
	// Slot c holds the first entry above o, if any. Whether o is in the
	// hidden __pfx_ symbol before it, tested with one well-predicted
	// branch (the pfx flag alone is a coin flip): an unused slot, and slot
	// markStride, have no flag. A pfx entry's lane is >= pfxGap (see
	// builder.push).
	flags, above := load16(h, flagsOff), load16(h, lanesOff+2*c)
	j := int(load32(h, entryOff)) + int(c)
	if b2u(flags>>(c&31)&1 != 0)&b2u(x >= above-pfxGap) != 0 { // (c <= markStride)
		return hit{idx: j, pfx: true, start: t.base + uint64(start+above-pfxGap),
			name: nameLoc(load32(h, namesOff), load32(h, boundsOff+2*c))}, true
	}
	if c == 0 { // o below the table's first symbol (not reached: o >= start)
		return hit{}, false
	}
	// Entry j-1 is the answer unless the entry before it has its address,
	// or it is an end of text (then slot 0: see endFlag).
	at := load16(h, lanesOff+2*c-2)
	if c > 1 && load16(h, lanesOff+2*c-4) == at || c == 1 && flags&(dupFlag|endFlag) != 0 {
		return t.firstAt(j - 1), true
	}
	return hit{idx: j - 1, start: t.base + uint64(start+at),
		name: nameLoc(load32(h, namesOff), load32(h, boundsOff+2*c-2))}, true
}

// searchBlock returns the block that holds the last entry at or below o,
// or block 0 when every entry is above o, where find's index lookup does
// not: in a table without an index, in a dense bucket, or above the last
// bucket.
func (t *table) searchBlock(o uint32) int {
	if t.index == nil {
		return t.searchBlocks(0, t.nblocks()-1, o)
	}
	k := min(int(o>>t.shift), len(t.index)-1)
	e := t.index[k]
	b := int(e & blockMask)
	if e&denseBit != 0 { // the blocks that start in the bucket, and b
		hi := t.nblocks() - 1
		if k+1 < len(t.index) {
			hi = int(t.index[k+1] & blockMask)
		}
		return t.searchBlocks(b, hi, o)
	}
	// (only the last bucket holds offsets beyond its 1<<shift bytes)
	local := min(o-uint32(k)<<t.shift, 1<<t.shift-1)
	return b + int(b2u(local >= e>>splitOff&noSplit)) // noSplit > 1<<maxShift
}

// Lane masks: laneOnes has 1 in each 16-bit lane, laneHigh bit 15 of each.
const (
	laneOnes = 0x0001_0001_0001_0001
	laneHigh = 0x8000_8000_8000_8000
)

// countLanes returns how many of the markStride lanes of the header at h
// are <= x (x <= laneMax). It compares four lanes at a time without
// branches, with SWAR arithmetic: lanes and x are below 1<<15, so in
// (x | 1<<15) - lane, per 16-bit lane, bit 15 survives exactly when
// lane <= x. Lanes are sorted and padding is above x, so the count is the
// number of the block's entries at or below x.
func countLanes(h unsafe.Pointer, x uint32) uintptr {
	v := uint64(x)*laneOnes | laneHigh
	s := (v-load64(h, lanesOff))&laneHigh>>15 + (v-load64(h, lanesOff+8))&laneHigh>>15 +
		(v-load64(h, lanesOff+16))&laneHigh>>15
	return uintptr(s * laneOnes >> 48) // the sum of the four lanes' counts
}

// findWide is find for an empty or wide table, for an address below a
// table's base, or for one at or above its narrow limit.
func (t *table) findWide(a uint64) (hit, bool) {
	if t.n == 0 || a < t.base {
		return hit{}, false
	}
	j := t.n // the first entry whose address is > a
	if t.wide() != nil {
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

// firstAt returns the hit of the first entry with the address of entry i,
// or an outsideText hit when that entry is an end of text.
func (t *table) firstAt(i int) hit {
	at := t.addr(i)
	for i > 0 && t.addr(i-1) == at {
		i--
	}
	if t.isEnd(i) {
		return hit{idx: outsideText, start: at}
	}
	return t.hitAt(i, false)
}

// searchBlocks returns the last of blocks [lo, hi] whose start is <= o
// (block lo if none).
func (t *table) searchBlocks(lo, hi int, o uint32) int {
	for lo < hi {
		m := int(uint(lo+hi+1) >> 1)
		if t.hdr(m).start() <= o {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// upperWide returns the index of the first entry whose address is > a, in
// a wide table.
func (t *table) upperWide(a uint64) int {
	w := t.wide()
	i, found := slices.BinarySearch(w, a)
	for found && i < len(w) && w[i] == a {
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

// typeOf returns the kallsyms type letter of h, or 0 without Options.Data.
func (t *table) typeOf(h hit) byte {
	if t.x == nil || t.x.types == nil || h.idx < 0 {
		return 0
	}
	return t.x.types[h.idx]
}
