package builder

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/internal/wire"
	"github.com/kmeta-dev/kmeta/internal/btfraw"
)

// strTable is a Builder's own string section with a hash index, so that
// every distinct string is stored once. For split output it first looks the
// string up in the base's strings and references it there.
//
// The index is an open-addressing table, kept at most half full, whose
// slots hold an own offset in their low 24 bits (offsets never exceed
// wire.MaxNameOffset) and 8 bits of the string's hash above them, never
// zero, so that a zero slot is empty and most probes that meet another
// string are decided without reading it. The hash seed is random but never
// affects the output, which depends only on the order strings are added.
type strTable struct {
	data  []byte   // own string section
	start uint32   // string offset of data[0]
	slots []uint32 // tag<<24 | own offset, 0 = empty
	count int
	seed  maphash.Seed

	base      *btf.Spec
	baseIndex *strIndex // built on first use
}

// Slot layout of strTable.slots.
const (
	slotOffBits = 24
	slotOffMask = 1<<slotOffBits - 1
)

func newStrTable(base *btf.Spec) strTable {
	t := strTable{seed: maphash.MakeSeed(), base: base}
	if base == nil {
		// Standalone BTF starts with the empty string at offset 0; split
		// BTF uses the base's, and starts empty as libbpf writes it.
		t.data = []byte{0}
		return t
	}
	data, start := btfraw.StringSection(base)
	t.start = start + uint32(len(data))
	return t
}

// add returns the offset of s in the string space, adding it if needed. The
// empty string is always offset 0.
func (t *strTable) add(s []byte) (uint32, error) {
	if bytes.IndexByte(s, 0) >= 0 {
		return 0, fmt.Errorf("string %q contains a NUL byte", s)
	}
	return t.intern(s)
}

// intern is add for a string known to hold no NUL byte (one read from a
// string section, which ends it at the first NUL).
func (t *strTable) intern(s []byte) (uint32, error) {
	if len(s) == 0 {
		return 0, nil
	}
	if t.base != nil {
		if t.baseIndex == nil {
			t.baseIndex = newStrIndex(t.base)
		}
		if off, ok := t.baseIndex.find(s); ok {
			return off, nil
		}
	}
	if 2*(t.count+1) > len(t.slots) {
		t.grow()
	}
	h := maphash.Bytes(t.seed, s)
	tag := slotTag(h)
	mask := uint32(len(t.slots) - 1)
	for i := uint32(h) & mask; ; i = (i + 1) & mask {
		slot := t.slots[i]
		if slot == 0 {
			off := uint32(len(t.data))
			if uint64(t.start)+uint64(off) > wire.MaxNameOffset {
				return 0, fmt.Errorf("string section larger than the %d bytes BTF allows", wire.MaxNameOffset)
			}
			// Two appends to t.data itself: the compiler then writes the
			// slice's pointer only when it grows, which keeps the loop free
			// of write barriers while the GC runs.
			t.data = append(t.data, s...)
			t.data = append(t.data, 0)
			t.slots[i] = tag | off
			t.count++
			return t.start + off, nil
		}
		if slot&^slotOffMask == tag && t.equal(slot&slotOffMask, s) {
			return t.start + slot&slotOffMask, nil
		}
	}
}

// slotTag returns the hash bits kept in a strTable slot: never zero.
func slotTag(h uint64) uint32 {
	return max(uint32(h>>(64-(32-slotOffBits))), 1) << slotOffBits
}

// equal reports whether the own string at off is s.
func (t *strTable) equal(off uint32, s []byte) bool {
	rest := t.data[off:]
	return len(rest) > len(s) && rest[len(s)] == 0 && bytes.Equal(rest[:len(s)], s)
}

func (t *strTable) grow() { t.rehash(max(1024, 2*len(t.slots))) }

// reserve sizes the index for n more strings, so that a large copy does not
// rehash on the way.
func (t *strTable) reserve(n int) {
	want := 2 * (t.count + n)
	if want <= len(t.slots) {
		return
	}
	size := 1024
	for size < want {
		size *= 2
	}
	t.rehash(size)
	// Kernel names average about 14 bytes with their NUL.
	t.data = slices.Grow(t.data, 14*n)
}

// rehash rebuilds the index with n slots (a power of two).
func (t *strTable) rehash(n int) {
	t.slots = make([]uint32, n)
	t.count = 0
	mask := uint32(n - 1)
	first := uint32(0)
	if t.base == nil {
		first = 1 // skip the leading empty string
	}
	for off := first; off < uint32(len(t.data)); {
		end := off + uint32(bytes.IndexByte(t.data[off:], 0))
		h := maphash.Bytes(t.seed, t.data[off:end])
		i := uint32(h) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = slotTag(h) | off
		t.count++
		off = end + 1
	}
}

// truncate drops the strings added after the own section had n bytes; used
// to undo a failed copy.
func (t *strTable) truncate(n int) {
	if n >= len(t.data) {
		return
	}
	t.data = t.data[:n]
	t.rehash(max(1024, len(t.slots)))
}

// strIndex finds strings in a base Spec chain: every string that starts
// after a NUL, mapped to its first offset.
type strIndex struct {
	seed  maphash.Seed
	secs  [][]byte // string sections, in chain order
	start []uint32 // their first offsets
	slots []uint32 // string offset+1, 0 = empty
}

func newStrIndex(base *btf.Spec) *strIndex {
	x := &strIndex{seed: maphash.MakeSeed()}
	n := 0
	for s := base; s != nil; s = s.Base() {
		data, start := btfraw.StringSection(s)
		x.secs = append(x.secs, data)
		x.start = append(x.start, start)
		n += bytes.Count(data, []byte{0})
	}
	size := 1024
	for size < 2*n {
		size *= 2
	}
	x.slots = make([]uint32, size)
	mask := uint32(size - 1)
	// Insert from the root base up, so the lowest offset of a duplicated
	// string wins (as libbpf's lookup finds it).
	for k := len(x.secs) - 1; k >= 0; k-- {
		data := x.secs[k]
		for off := 0; off < len(data); {
			i := bytes.IndexByte(data[off:], 0)
			if i < 0 {
				break
			}
			end := off + i
			if end > off {
				x.insert(data[off:end], x.start[k]+uint32(off), mask)
			}
			off = end + 1
		}
	}
	return x
}

func (x *strIndex) insert(s []byte, off, mask uint32) {
	for i := uint32(maphash.Bytes(x.seed, s)) & mask; ; i = (i + 1) & mask {
		slot := x.slots[i]
		if slot == 0 {
			x.slots[i] = off + 1
			return
		}
		if x.equal(slot-1, s) {
			return
		}
	}
}

func (x *strIndex) find(s []byte) (uint32, bool) {
	mask := uint32(len(x.slots) - 1)
	for i := uint32(maphash.Bytes(x.seed, s)) & mask; ; i = (i + 1) & mask {
		slot := x.slots[i]
		if slot == 0 {
			return 0, false
		}
		if x.equal(slot-1, s) {
			return slot - 1, true
		}
	}
}

// equal reports whether the base string at string offset off is s.
func (x *strIndex) equal(off uint32, s []byte) bool {
	for k, start := range x.start {
		if off >= start {
			rest := x.secs[k][off-start:]
			return len(rest) > len(s) && rest[len(s)] == 0 && bytes.Equal(rest[:len(s)], s)
		}
	}
	return false
}
