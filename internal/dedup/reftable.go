package dedup

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// refTable indexes the canonical reference types of the reference pass
// (refType) by their words, once their references are canonical.
//
// libbpf files them in its dedup_table with every other kind, and the
// order of a bucket's candidates matters for structs (see table). It
// does not here: two canonical reference types are never equal word for
// word (the second would have matched the first), so at most one
// candidate matches, whatever the order. A table of its own, probed once
// per type, spares the reference pass the shared table's chains and a read
// of the candidate's record: most reference types are three words
// (pointers, qualifiers, typedefs, functions), which its slots hold whole.
// The pass is serial, after the encoding of a vmlinux, whose types are
// mostly reference types.
type refTable struct {
	slots []refSlot
	n     int
	// lazy is set while the slots of a table sized by a hint are not yet
	// populated (see reserve).
	lazy bool
	// mem holds slots: a merge of a kernel's modules keeps a hundred
	// thousand canonical reference types, and a table grown on the heap
	// would leave its earlier copies to the collector.
	mem *mmap.Region
}

// refSlot is 16 bytes: a three-word record whole, or a longer one's hash
// (its two halves in w[0] and w[1]), compared with its record then.
type refSlot struct {
	w  [3]uint32
	id uint32 // the canonical id, longBit set for a longer record; 0: empty
}

// refSlotSize is the bytes of a refSlot.
const refSlotSize = 16

// longBit marks the slot of a record longer than three words (ids stay
// below maxID).
const longBit = 1 << 31

// reserve sizes an empty table for about n canonical types. The hint
// may be far above what is kept (a million equal pointers keep one), so
// the slots are left unpopulated, costing memory only where an insertion
// writes, until the table holds one entry for every lazyBytes of slots
// (stillLazy).
func (t *refTable) reserve(n int) {
	if t.slots == nil {
		t.slots = makeMapped[refSlot](refSlots(n), &t.mem)
		t.lazy = t.mem != nil
	}
}

// lazyBytes is the bytes of slots for each entry below which a hash
// table sized by a hint stays unpopulated: one entry for every eight 4
// KB pages.
const lazyBytes = 8 * 4096

// stillLazy reports whether a hash table of size bytes of slots in mem,
// holding n entries, stays unpopulated, and populates it if not. An
// unpopulated page costs memory only once an insertion writes it; by one
// entry for every lazyBytes most of the pages would be written anyway,
// and populating them all at once spares each its two faults (a probe
// maps the zero page, the write a page of its own: see MakePopulated).
func stillLazy(mem *mmap.Region, n, size int) bool {
	if n*lazyBytes < size {
		return true
	}
	mem.Populate(0, size)
	return false
}

// refSlots is the number of slots that holds n entries at most 3/4 full.
func refSlots(n int) int {
	s := 1 << 10
	for 3*s < 4*n {
		s *= 2
	}
	return s
}

// find returns the canonical type equal to r, a reference type whose
// references are canonical, or files id as canonical and returns it.
func (t *refTable) find(d *state, r record, id uint32) uint32 {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.resize(refSlots(t.n + 1 + t.n/2))
	} else if t.lazy {
		t.lazy = stillLazy(t.mem, t.n, len(t.slots)*refSlotSize)
	}
	h := hashAll(r)
	key, mark := [3]uint32{uint32(h), uint32(h >> 32), 0}, uint32(longBit)
	if len(r) == 3 {
		key, mark = [3]uint32{r[0], r[1], r[2]}, 0
	}
	mask := uint64(len(t.slots) - 1)
	for i := h >> 32 & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		switch {
		case s.id == 0:
			*s = refSlot{w: key, id: id | mark}
			t.n++
			return id
		case s.w != key || s.id&longBit != mark:
		case mark == 0 || equalAll(r, d.rec(s.id&^longBit)):
			return s.id &^ longBit
		}
	}
}

// hash returns the hash find filed s under.
func (s *refSlot) hash() uint64 {
	if s.id&longBit != 0 {
		return uint64(s.w[1])<<32 | uint64(s.w[0])
	}
	return hashAll(s.w[:])
}

func (t *refTable) resize(n int) {
	old, oldMem := t.slots, t.mem
	t.mem = nil
	// Probed before written: populated, as the shared table's slots.
	t.slots = makePopulated[refSlot](n, &t.mem)
	t.lazy = false
	mask := uint64(len(t.slots) - 1)
	for _, e := range old {
		if e.id == 0 {
			continue
		}
		i := e.hash() >> 32 & mask
		for t.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = e
	}
	mmap.Free(&oldMem)
}

// free gives back the table's mapping; it must not be used afterwards.
func (t *refTable) free() {
	mmap.Free(&t.mem)
	*t = refTable{}
}

// baseRef returns the base's type equal to r, a reference type (own type
// id) whose references are canonical, if any: filed in the base's table
// as libbpf files it.
func (d *state) baseRef(r record, id uint32) (uint32, bool) {
	under := d.tab.under
	if under == nil {
		return 0, false
	}
	k := hashKey(hashAll(r))
	if kindOf(r) == btf.KindTypedef {
		// libbpf 1.1 deduplicates typedefs here, equal word for word;
		// the Base files its typedefs under their struct-pass key
		// (libbpf 1.8's), which equal typedefs share.
		k = d.structKey(r, id)
	}
	for c := range under.candidates(k) {
		if equalAll(r, d.rec(c)) {
			return c, true
		}
	}
	return 0, false
}
