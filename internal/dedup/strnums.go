package dedup

import (
	"bytes"
	"math/bits"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// strNums maps the offsets of an input's string section that its names
// use to the numbers Prepare gave their strings: open addressing with
// linear probing, sized from the strings the section holds. (A number
// for every byte of the section, the direct index, takes four times the
// section; most of its entries are never used.)
type strNums struct {
	slots []uint64 // (offset+1)<<32 | number; 0 is an empty slot
	shift uint     // 64 minus the table's bits
	n     int
}

// reset empties t for the string section sec, with room for as many
// strings as sec ends (names may also point into a string, at one of its
// suffixes: then t grows). The slots are kept in the mapping *g.
func (t *strNums) reset(sec []byte, g **mmap.Region) {
	want := bytes.Count(sec, []byte{0})
	size := 16
	for size*3/4 <= want {
		size *= 2
	}
	t.slots = growMapped(t.slots[:0], size, g)[:size]
	clear(t.slots)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
}

// slot returns the index of off's slot, or of the empty slot where it
// would go.
func (t *strNums) slot(off uint32) int {
	key := uint64(off) + 1
	mask := len(t.slots) - 1
	i := int((key * 0x9e3779b97f4a7c15) >> t.shift)
	for {
		s := t.slots[i]
		if s == 0 || s>>32 == key {
			return i
		}
		i = (i + 1) & mask
	}
}

// get returns the number of the string at off, if it has one.
func (t *strNums) get(off uint32) (uint32, bool) {
	s := t.slots[t.slot(off)]
	return uint32(s), s != 0
}

// put numbers the string at off, which has no number yet, j.
func (t *strNums) put(off, j uint32, g **mmap.Region) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow(g)
	}
	t.slots[t.slot(off)] = (uint64(off)+1)<<32 | uint64(j)
	t.n++
}

// grow doubles the table, moving its entries through a copy.
func (t *strNums) grow(g **mmap.Region) {
	old := make([]uint64, 0, t.n)
	for _, s := range t.slots {
		if s != 0 {
			old = append(old, s)
		}
	}
	size := 2 * len(t.slots)
	t.slots = growMapped(t.slots[:0], size, g)[:size]
	clear(t.slots)
	t.shift--
	for _, s := range old {
		t.slots[t.slot(uint32(s>>32)-1)] = s
	}
}
