package dedup

import (
	"bytes"
	"fmt"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// Names in records are string keys: the string offset in the base's string
// space for a string of the base, else an offset in the deduplication's own
// string section, which starts where the base's strings end. Equal strings
// get equal keys, as libbpf's string deduplication gives them equal offsets
// (btf_dedup_strings: a string found in the base takes the base's lowest
// offset; base records keep their offsets as they are).

// strset is a string section with an open-addressing index of its strings:
// slots hold 32 bits of the string's hash above its offset+1 within data,
// 0 when empty, so that probes that meet another string rarely read it;
// the table is kept at most half full. The seed changes no output: keys are offsets, given in the
// order strings are added.
//
// A large index, and data the strset appends to, are in mappings (see
// makeMapped), given back by free.
type strset struct {
	seed  maphash.Seed
	data  []byte
	slots []uint64
	count int
	// dense keeps the index up to 3/4 full instead of 1/2: for an index
	// built once, whose size is known (a Base's), half the memory for
	// probes a little longer.
	dense bool

	dataMem, slotsMem *mmap.Growable
}

// full reports whether the index would be too full with n more strings.
func (t *strset) full(n int) bool {
	if t.dense {
		return 4*(t.count+n) > 3*len(t.slots)
	}
	return 2*(t.count+n) > len(t.slots)
}

func newStrset(hint int) strset {
	n := 64
	for n < 2*hint {
		n *= 2
	}
	t := strset{seed: maphash.MakeSeed()}
	t.slots = makeMapped[uint64](n, &t.slotsMem)
	return t
}

// free gives back the strset's mappings; it must not be used afterwards.
func (t *strset) free() {
	freeMapped(&t.dataMem, &t.slotsMem)
	t.data, t.slots = nil, nil
}

// freeIndex gives back the index; the strset may then only be read.
func (t *strset) freeIndex() {
	freeMapped(&t.slotsMem)
	t.slots = nil
}

// reserveData makes room for n more bytes of strings.
func (t *strset) reserveData(n int) { t.data = growMapped(t.data, n, &t.dataMem) }

// setSlots replaces the index by n empty slots, returning the old ones and
// their mapping, to be freed once moved.
func (t *strset) setSlots(n int) ([]uint64, *mmap.Growable) {
	old, mem := t.slots, t.slotsMem
	t.slotsMem = nil
	t.slots = makeMapped[uint64](n, &t.slotsMem)
	return old, mem
}

// reserve sizes the index for n more strings.
func (t *strset) reserve(n int) {
	for t.full(n) {
		t.grow()
	}
}

// find returns the offset of s in data, or false.
func (t *strset) find(s []byte) (uint32, bool) { return t.findHash(s, t.hash(s)) }

func (t *strset) hash(s []byte) uint64 { return maphash.Bytes(t.seed, s) }

// findHash is find, with h the hash of s.
func (t *strset) findHash(s []byte, h uint64) (uint32, bool) {
	tag := h &^ (1<<32 - 1)
	mask := uint32(len(t.slots) - 1)
	for i := uint32(h) & mask; ; i = (i + 1) & mask {
		slot := t.slots[i]
		if slot == 0 {
			return 0, false
		}
		if slot&^(1<<32-1) == tag && t.at(uint32(slot)-1, s) {
			return uint32(slot) - 1, true
		}
	}
}

func (t *strset) at(off uint32, s []byte) bool {
	rest := t.data[off:]
	return len(rest) > len(s) && rest[len(s)] == 0 && bytes.Equal(rest[:len(s)], s)
}

// insert indexes the string at off of data, unless an equal one is there.
func (t *strset) insert(off uint32, s []byte) {
	if t.full(1) {
		t.grow()
	}
	h := maphash.Bytes(t.seed, s)
	tag := h &^ (1<<32 - 1)
	mask := uint32(len(t.slots) - 1)
	for i := uint32(h) & mask; ; i = (i + 1) & mask {
		slot := t.slots[i]
		if slot == 0 {
			t.slots[i] = tag | uint64(off+1)
			t.count++
			return
		}
		if slot&^(1<<32-1) == tag && t.at(uint32(slot)-1, s) {
			return
		}
	}
}

func (t *strset) grow() {
	old, mem := t.setSlots(2 * len(t.slots))
	for _, slot := range old {
		if slot != 0 {
			t.place(slot)
		}
	}
	mem.Free()
}

// place puts an existing slot into the index, which does not hold it yet.
func (t *strset) place(slot uint64) {
	mask := uint32(len(t.slots) - 1)
	// The low 32 bits of the hash are not kept: hash again.
	i := uint32(maphash.Bytes(t.seed, cstr(t.data, uint32(slot)-1))) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = slot
}

// truncate forgets the strings from offset mark of data on, as if they had
// never been added: an input that fails half-way leaves no string behind,
// as libbpf's btf__add_btf restores the string section's size.
func (t *strset) truncate(mark int) {
	if mark >= len(t.data) {
		return
	}
	t.data = t.data[:mark]
	old, mem := t.setSlots(len(t.slots))
	t.count = 0
	for _, slot := range old {
		if slot != 0 && int(uint32(slot)-1) < mark {
			t.place(slot)
			t.count++
		}
	}
	mem.Free()
}

// add returns the offset of s in data, appending it if needed.
func (t *strset) add(s []byte) uint32 { return t.addHash(s, t.hash(s)) }

// addHash is add, with h the hash of s: one probe finds s or the slot
// where it goes.
func (t *strset) addHash(s []byte, h uint64) uint32 {
	if t.full(1) {
		t.grow()
	}
	tag := h &^ (1<<32 - 1)
	mask := uint32(len(t.slots) - 1)
	for i := uint32(h) & mask; ; i = (i + 1) & mask {
		slot := t.slots[i]
		if slot == 0 {
			off := uint32(len(t.data))
			t.reserveData(len(s) + 1)
			t.data = append(t.data, s...)
			t.data = append(t.data, 0)
			t.slots[i] = tag | uint64(off+1)
			t.count++
			return off
		}
		if slot&^(1<<32-1) == tag && t.at(uint32(slot)-1, s) {
			return uint32(slot) - 1
		}
	}
}

// strtab is an own string section, on a base's strings if any.
type strtab struct {
	base  *baseStrings // nil for standalone BTF
	start uint32       // key of own.data[0]
	own   strset
}

func newStrtab(base *baseStrings, hint int) strtab {
	t := strtab{base: base, own: newStrset(hint)}
	if base != nil {
		t.own.seed = base.index.seed
	}
	if base == nil {
		t.own.data = []byte{0}
	} else {
		t.start = base.end
	}
	return t
}

// intern returns the key of s, which holds no NUL.
func (t *strtab) intern(s []byte) (uint32, error) {
	if len(s) == 0 {
		return 0, nil
	}
	// The own index shares the base's seed: one hash serves both.
	h := t.own.hash(s)
	if t.base != nil {
		if off, ok := t.base.index.findHash(s, h); ok {
			return off, nil
		}
	}
	off := t.own.addHash(s, h)
	// Strings of types that deduplication drops are counted here too;
	// the output's own limit is checked when it is written.
	if uint64(t.start)+uint64(len(t.own.data)) > maxID {
		return 0, fmt.Errorf("dedup: more than %d bytes of strings appended", maxID)
	}
	return t.start + off, nil
}

// data returns the own string section.
func (t *strtab) data() []byte { return t.own.data }

// baseStrings is a base's string space: its sections and an index of the
// strings that start after a NUL, each at its lowest offset, as
// btf__find_str finds them.
type baseStrings struct {
	secs  [][]byte // string sections, root first
	start []uint32
	end   uint32
	index *strset // over all sections, concatenated
}

// build indexes the base strings. Offsets in the index are offsets in the
// concatenated sections, which are the base's string offsets.
func (b *baseStrings) build() {
	n := 0
	for _, s := range b.secs {
		n += bytes.Count(s, []byte{0})
	}
	index := newStrset(0)
	index.dense = true
	index.reserve(n)
	b.index = &index
	// One section (a vmlinux) is indexed where it is, in the Spec; the
	// index never appends to a base's strings.
	if len(b.secs) == 1 {
		b.index.data = b.secs[0]
	} else {
		b.index.data = bytes.Join(b.secs, nil)
	}
	data := b.index.data
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], 0)
		if i < 0 {
			break
		}
		if i > 0 {
			b.index.insert(uint32(off), data[off:off+i])
		}
		off += i + 1
	}
}
