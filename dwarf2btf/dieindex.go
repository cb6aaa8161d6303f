package dwarf2btf

import (
	"cmp"
	"math/bits"
	"slices"
)

// dieIndex maps the .debug_info offsets of a unit's indexed DIEs (types,
// parameters, variables, functions, namespaces) to their entries, for the
// recoding of references. A slice with a word per byte of the unit cost 4
// bytes a byte, cleared for every unit: 4.8 MB for a unit of 1.2 MB. Here
// a bit per byte marks the offsets indexed, a count per 64 bytes ranks
// them, and the entries are kept by rank: 0.19 bytes a byte of the unit
// and 4 bytes an indexed DIE, with lookups still in constant time.
//
// Offsets are marked in increasing order, so each one's rank is final
// when it is marked: the loader reserves the offset of a DIE that it
// indexes only after its children (pahole adds a container after what it
// holds) when it reads the DIE, and sets its entry later. An offset added
// out of that order, unreserved, is kept apart and placed by build.
type dieIndex struct {
	base  uint32
	size  uint32   // bytes of the unit
	marks []uint64 // bit o%64 of marks[o/64]: an entry at base+o
	ranks []uint32 // entries before marks[w], for the words marked so far
	vals  []int32  // kind<<28 | index+1 (0: reserved), by rank
	last  uint32   // 1+ the last offset marked in order, 0 if none
	late  []diePair
}

type diePair struct {
	off uint32 // from base
	val int32
}

// reset empties x for a unit of size bytes at base.
func (x *dieIndex) reset(base, size uint32) {
	x.base, x.size, x.last = base, size, 0
	n := int(size/64) + 1
	if cap(x.marks) < n {
		x.marks = make([]uint64, n)
	} else {
		x.marks = x.marks[:n]
		clear(x.marks)
	}
	x.ranks, x.vals, x.late = x.ranks[:0], x.vals[:0], x.late[:0]
}

// reserve marks off, read before any later DIE, for an add once the
// DIE's children are read.
func (x *dieIndex) reserve(off uint32) { x.add(off, 0) }

// add records val for the DIE at off; a later add of the same offset
// wins. An offset outside the unit is ignored. The common case, an
// offset past all those marked, comes first, and the rest is left to
// addBefore: the index's adds and lookups were about 1.8 billion
// instructions of the 6.12 vmlinux's encoding (BENCH.md, "The
// instructions of one big encoding").
func (x *dieIndex) add(off uint32, val int32) {
	o := off - x.base // past size if off is below base
	if o >= x.last && o < x.size {
		w := o / 64
		if int(w) >= len(x.ranks) {
			x.rankTo(w)
		}
		x.marks[w] |= 1 << (o % 64)
		x.vals = appendTable(x.vals, val)
		x.last = o + 1
		return
	}
	x.addBefore(o, val)
}

// rankTo extends ranks to word w, which the next offset marked is in.
func (x *dieIndex) rankTo(w uint32) {
	n := uint32(len(x.vals))
	for len(x.ranks) <= int(w) {
		x.ranks = append(x.ranks, n)
	}
}

// addBefore is add of o (from base), at or before the last offset marked.
func (x *dieIndex) addBefore(o uint32, val int32) {
	if o >= x.size {
		return
	}
	switch w, bit := o/64, uint64(1)<<(o%64); {
	case x.marks[w]&bit != 0: // reserved, or added before
		if val != 0 {
			x.vals[x.rank(o)] = val
		}
	case val != 0: // out of order (a reservation out of order is moot)
		x.late = append(x.late, diePair{o, val})
	}
}

// build places the offsets added out of order, if any, for get.
func (x *dieIndex) build() {
	if len(x.late) == 0 {
		return
	}
	pairs := make([]diePair, 0, len(x.vals)+len(x.late))
	for w, m := range x.marks[:len(x.ranks)] {
		for ; m != 0; m &= m - 1 {
			o := uint32(w*64 + bits.TrailingZeros64(m))
			pairs = append(pairs, diePair{o, x.vals[x.rank(o)]})
		}
	}
	// Stable: of two adds of one offset, the later wins.
	pairs = append(pairs, x.late...)
	slices.SortStableFunc(pairs, func(a, b diePair) int { return cmp.Compare(a.off, b.off) })
	clear(x.marks)
	x.ranks, x.vals, x.last, x.late = x.ranks[:0], x.vals[:0], 0, x.late[:0]
	for i, p := range pairs {
		if i+1 < len(pairs) && pairs[i+1].off == p.off {
			continue
		}
		x.add(x.base+p.off, p.val)
	}
}

// rank returns the number of offsets marked before o, which is marked.
func (x *dieIndex) rank(o uint32) uint32 {
	return x.ranks[o/64] + uint32(bits.OnesCount64(x.marks[o/64]&(1<<(o%64)-1)))
}

// get returns the value at off, 0 if none (once built). The words
// ranked are those up to the last offset marked, so one comparison
// bounds off on both sides (below base, o wraps past them). The word's
// marks are shifted to end at o's: its mark is their top bit, and those
// below it rank it.
func (x *dieIndex) get(off uint32) int32 {
	o := off - x.base
	if w := o / 64; int(w) < len(x.ranks) {
		if m := x.marks[w] << (63 - o%64); int64(m) < 0 {
			return x.vals[x.ranks[w]+uint32(bits.OnesCount64(m))-1]
		}
	}
	return 0
}
