package cdump

import (
	"bytes"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/btf"
)

// nameCounts counts the uses of names in one of C's namespaces (libbpf's
// btf_dump_name_dups and its hashmaps): an open-addressing table of string
// offsets and counts, 8 bytes a slot, so that an input of a million small
// named types does not pay a Go map's 40 or more bytes a name. Names are
// compared by their bytes: the same name may sit at two offsets of a Spec
// chain.
type nameCounts struct {
	slots []nameSlot // linear probing; n == 0 marks a free slot
	used  int
	seed  maphash.Seed
	limit int // names that can be counted at most, for the first size
}

type nameSlot struct{ off, n uint32 }

// newNameCounts returns an empty table for at most limit distinct names;
// it allocates on the first count.
func newNameCounts(limit int) nameCounts {
	return nameCounts{seed: maphash.MakeSeed(), limit: max(limit, 1)}
}

// count counts one more use of the name at off, whose bytes are name, and
// returns the count.
func (c *nameCounts) count(strs strSpace, off uint32, name []byte) uint32 {
	if 4*(c.used+1) > 3*len(c.slots) {
		c.grow(strs)
	}
	i := c.index(name)
	for {
		s := &c.slots[i]
		if s.n == 0 {
			*s = nameSlot{off: off, n: 1}
			c.used++
			return 1
		}
		if s.off == off || bytes.Equal(strs.name(s.off), name) {
			s.n++
			return s.n
		}
		if i++; i == len(c.slots) {
			i = 0
		}
	}
}

// index is where the probe for name starts: the hash's top 32 bits scaled
// to the table's size, which need not be a power of two.
func (c *nameCounts) index(name []byte) int {
	h := maphash.Bytes(c.seed, name) >> 32
	return int(h * uint64(len(c.slots)) >> 32)
}

// grow sizes the table for the names that can be counted at first (a
// load of at most 3/4 once all are in), then doubles it whenever it fills.
func (c *nameCounts) grow(strs strSpace) {
	n := c.limit*4/3 + 1
	if len(c.slots) > 0 {
		n = 2 * len(c.slots)
	}
	old := c.slots
	c.slots = make([]nameSlot, n)
	for _, s := range old {
		if s.n == 0 {
			continue
		}
		i := c.index(strs.name(s.off))
		for c.slots[i].n != 0 {
			if i++; i == len(c.slots) {
				i = 0
			}
		}
		c.slots[i] = s
	}
}

// renames keeps, for each type printed as "name___n", its n: an
// open-addressing table of ids and counts, 8 bytes a slot, for the first
// types renamed, then, once more than one type in 16 is, an array by id,
// 4 bytes a type. A Go map of the spellings took about 80 bytes a type
// (a million structs of one name).
type renames struct {
	slots []nameSlot // off is the id; linear probing; id 0 marks a free slot
	used  int
	dense []uint32 // by id, instead of slots
	types int      // ids in all, void included
}

// set records n for id, which is not void.
func (r *renames) set(id btf.TypeID, n uint32) {
	switch {
	case r.dense != nil:
	case 16*(r.used+1) > r.types:
		r.dense = make([]uint32, r.types)
		for _, s := range r.slots {
			if s.off != 0 {
				r.dense[s.off] = s.n
			}
		}
		r.slots = nil
	default:
		r.setSlot(id, n)
		return
	}
	if int(id) < len(r.dense) {
		r.dense[id] = n
	}
}

// setSlot records n for id in slots, which grow to keep a load of at
// most 3/4.
func (r *renames) setSlot(id btf.TypeID, n uint32) {
	if 4*(r.used+1) > 3*len(r.slots) {
		old := r.slots
		r.slots = make([]nameSlot, max(16, 2*len(old)))
		for _, s := range old {
			if s.off != 0 {
				*r.slot(btf.TypeID(s.off)) = s
			}
		}
	}
	s := r.slot(id)
	if s.off == 0 {
		r.used++
	}
	*s = nameSlot{off: uint32(id), n: n}
}

// get returns the n recorded for id, or 0.
func (r *renames) get(id btf.TypeID) uint32 {
	switch {
	case r.dense != nil:
		if int(id) < len(r.dense) {
			return r.dense[id]
		}
		return 0
	case len(r.slots) == 0:
		return 0
	}
	return r.slot(id).n
}

// slot returns the slot of id, or the free slot where it goes.
func (r *renames) slot(id btf.TypeID) *nameSlot {
	i := int(uint64(uint32(id)*0x9e3779b1) * uint64(len(r.slots)) >> 32)
	for {
		s := &r.slots[i]
		if s.off == uint32(id) || s.off == 0 {
			return s
		}
		if i++; i == len(r.slots) {
			i = 0
		}
	}
}
