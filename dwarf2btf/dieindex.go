package dwarf2btf

import "math/bits"

// dieIndex maps the .debug_info offsets of a unit's indexed DIEs (types,
// parameters, variables, functions, namespaces) to their entries, for the
// recoding of references. A slice with a word per byte of the unit cost 4
// bytes a byte, cleared for every unit: 4.8 MB for a unit of 1.2 MB. Here
// a bit per byte marks the offsets indexed, a count per 64 bytes ranks
// them, and the entries are kept by rank: 0.19 bytes a byte of the unit
// and 12 bytes an indexed DIE, with lookups still in constant time.
//
// The loader indexes a container after its children (post-order), so the
// ranks are known only once the unit is loaded: add collects (offset,
// entry) pairs, and build places them.
type dieIndex struct {
	base  uint32
	size  uint32   // bytes of the unit
	marks []uint64 // bit o%64 of marks[o/64]: an entry at base+o
	ranks []uint32 // entries before marks[w]
	vals  []int32  // kind<<28 | index+1, by rank
	pairs []diePair
}

type diePair struct {
	off uint32 // from base
	val int32
}

// reset empties x for a unit of size bytes at base.
func (x *dieIndex) reset(base, size uint32) {
	x.base, x.size = base, size
	n := int(size/64) + 1
	if cap(x.marks) < n {
		x.marks = make([]uint64, n)
	} else {
		x.marks = x.marks[:n]
		clear(x.marks)
	}
	x.ranks, x.vals, x.pairs = x.ranks[:0], x.vals[:0], x.pairs[:0]
}

// add records val for the DIE at off; a later add of the same offset
// wins. An offset outside the unit is ignored.
func (x *dieIndex) add(off uint32, val int32) {
	o := off - x.base
	if off < x.base || o >= x.size {
		return
	}
	x.marks[o/64] |= 1 << (o % 64)
	x.pairs = append(x.pairs, diePair{o, val})
}

// build ranks the offsets and places the values added, for get.
func (x *dieIndex) build() {
	n := uint32(0)
	x.ranks = x.ranks[:0]
	for _, m := range x.marks {
		x.ranks = append(x.ranks, n)
		n += uint32(bits.OnesCount64(m))
	}
	if cap(x.vals) < int(n) {
		x.vals = make([]int32, n)
	}
	x.vals = x.vals[:n]
	for _, p := range x.pairs {
		x.vals[x.rank(p.off)] = p.val
	}
}

// rank returns the number of offsets marked before o, which is marked.
func (x *dieIndex) rank(o uint32) uint32 {
	return x.ranks[o/64] + uint32(bits.OnesCount64(x.marks[o/64]&(1<<(o%64)-1)))
}

// get returns the value at off, 0 if none (build first).
func (x *dieIndex) get(off uint32) int32 {
	o := off - x.base
	if off < x.base || o >= x.size || x.marks[o/64]&(1<<(o%64)) == 0 {
		return 0
	}
	return x.vals[x.rank(o)]
}
