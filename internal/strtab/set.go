// Package strtab is the one string table of kmeta's BTF writers: a BTF
// string section with a hash index over its strings, so that each
// distinct string is stored once, and a table that interns on top of a
// base's strings as split BTF does. The Builder, deduplication and, through
// them, the DWARF encoder use it; OffMap is the small offset-to-offset map
// the Builder keeps per source.
//
// # Layout
//
// A Set's strings are NUL-terminated, one after the other, in one byte
// slice, and are named by their offset in it. The index is an
// open-addressing table with linear probing, its size a power of two, kept
// at most half full (3/4 when dense). A slot holds a string's offset in its
// low bits and some bits of the string's hash above them, never all zero,
// so that a zero slot is empty and a probe that meets another string is
// almost always decided without reading it. The slot type sets the split:
// uint32 slots keep 24 offset bits and 8 hash bits (half the memory: the
// kernel's string offsets, wire.MaxNameOffset, fit them), uint64 slots 32
// and 32. Widen moves a Table whose strings outgrow uint32 slots to
// uint64 ones. The hash seed is random and never shows in the output, which depends
// only on the order strings are added.
//
// # Concurrency
//
// A Set or Table is not safe for concurrent use while strings are added.
// Once no more are, Find, FindHash and Hash may be called from any number
// of goroutines (a dedup.Base shares its index so).
package strtab

import (
	"bytes"
	"hash/maphash"
	"math"
	"slices"
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// Slot is the type of an index slot: see the package doc.
type Slot interface{ uint32 | uint64 }

// Options configure a Set. The zero value is a heap-allocated set kept at
// most half full.
type Options struct {
	// Hint is the number of strings expected: the index starts large
	// enough for them.
	Hint int
	// Dense keeps the index up to 3/4 full instead of 1/2: for an index
	// built once to a known size, half the memory for probes a little
	// longer.
	Dense bool
	// Mapped keeps a large index and the strings in anonymous mappings
	// (internal/mmap), given back by Free at once rather than by the
	// garbage collector.
	Mapped bool
}

// Set is a string section with an index of its strings. The zero value
// is not usable: make one with NewSet.
type Set[S Slot] struct {
	seed  maphash.Seed
	data  []byte
	slots []S
	count int
	dense bool
	// most is the number of strings the index takes before it grows.
	most int
	// limit is the largest offset a new string may take: what the slot
	// can hold, or less (SetLimit); negative for none.
	limit int

	// first is where the indexed strings start (after AppendRaw's).
	first int
	// shared is set for data given by SetData, whose strings may
	// repeat: the index is then rebuilt from its slots, not the data.
	shared bool

	mapped            bool
	dataMem, slotsMem *mmap.Region
}

// minSlots is the size of the smallest index.
const minSlots = 64

// NewSet returns an empty Set: no strings, not even the empty one.
func NewSet[S Slot](opts Options) *Set[S] {
	t := newSet[S](opts)
	return &t
}

func newSet[S Slot](opts Options) Set[S] {
	t := Set[S]{seed: maphash.MakeSeed(), dense: opts.Dense, mapped: opts.Mapped}
	t.limit = int(offMask[S]())
	if opts.Hint > 0 {
		t.setSlots(t.makeSlots(t.sizeFor(opts.Hint)))
	} else {
		t.setSlots(noSlots[S]())
	}
	return t
}

// An index with no string yet is one empty slot, shared and never
// written (the first Add grows it first), so that an unused Set costs no
// allocation and lookups need no test for an empty index.
var (
	noSlots32 [1]uint32
	noSlots64 [1]uint64
)

func noSlots[S Slot]() []S {
	if s, ok := any(noSlots32[:]).([]S); ok {
		return s
	}
	return any(noSlots64[:]).([]S)
}

// offBits returns the number of offset bits in a slot of type S.
func offBits[S Slot]() uint {
	if unsafe.Sizeof(S(0)) == 4 {
		return 24
	}
	return 32
}

func offMask[S Slot]() S { return S(1)<<offBits[S]() - 1 }

// pack returns the slot of the string at off with hash h: the top hash
// bits above the offset, never zero.
func pack[S Slot](h uint64, off uint32) S {
	ob := offBits[S]()
	tagBits := 8*uint(unsafe.Sizeof(S(0))) - ob
	return S(max(h>>(64-tagBits), 1))<<ob | S(off)
}

// Data returns the strings, each ended by a NUL. The slice is valid until
// the next call that adds a string.
func (t *Set[S]) Data() []byte { return t.data }

// Len returns the number of bytes of strings.
func (t *Set[S]) Len() int { return len(t.data) }

// Count returns the number of strings indexed.
func (t *Set[S]) Count() int { return t.count }

// SetData gives an empty Set its data, which Index then indexes. The Set
// reads data where it is and never appends to it: for a section read
// elsewhere, such as a base's. A string added afterwards goes to a copy.
func (t *Set[S]) SetData(data []byte) {
	t.data = data[:len(data):len(data)]
	t.shared = true
}

// AppendRaw appends b, which must be NUL-terminated strings, to the data
// without indexing them (the leading empty string of a standalone
// section, for example). It must come before any string is added.
func (t *Set[S]) AppendRaw(b []byte) {
	t.ReserveData(len(b))
	t.data = append(t.data, b...)
	t.first = len(t.data)
}

// Hash returns the hash of s that FindHash and AddHash take.
func (t *Set[S]) Hash(s []byte) uint64 { return maphash.Bytes(t.seed, s) }

// Seed returns the seed of the Set's hashes: Hash(s) is
// maphash.Bytes(Seed(), s). It never changes, so that goroutines may hash
// strings for AddHash and FindHash while others add.
func (t *Set[S]) Seed() maphash.Seed { return t.seed }

// HashTags calls f with the hash bits that the index keeps of each of its
// strings, in their places in the 64-bit hash (the top 32 bits for uint64
// slots, the top 8 for uint32 ones) and the other bits zero: enough to
// build a filter of the Set's hashes without hashing a string again.
func (t *Set[S]) HashTags(f func(tag uint64)) {
	ob := offBits[S]()
	shift := 64 - (8*uint(unsafe.Sizeof(S(0))) - ob)
	for _, slot := range t.slots {
		if slot != 0 {
			f(uint64(slot>>ob) << shift)
		}
	}
}

// Find returns the offset of s, or false if s is not in the Set.
func (t *Set[S]) Find(s []byte) (uint32, bool) { return t.FindHash(s, t.Hash(s)) }

// FindHash is Find, with h the hash of s.
func (t *Set[S]) FindHash(s []byte, h uint64) (uint32, bool) {
	// Guarded by dedup's BenchmarkMerged (base lookups).
	_, slot, ok := t.probe(s, h)
	return uint32(slot & offMask[S]()), ok
}

// probe returns the index of the slot of s and the slot, or false and the
// index of the empty slot where s goes and its hash bits.
func (t *Set[S]) probe(s []byte, h uint64) (uint32, S, bool) {
	ob := offBits[S]()
	tag := pack[S](h, 0)
	mask := uint32(len(t.slots) - 1)
	for i := uint32(h) & mask; ; i = (i + 1) & mask {
		slot := t.slots[i]
		if slot == 0 {
			return i, tag, false
		}
		if slot>>ob<<ob == tag && t.at(uint32(slot&offMask[S]()), s) {
			return i, slot, true
		}
	}
}

// at reports whether the string at off is s.
func (t *Set[S]) at(off uint32, s []byte) bool {
	rest := t.data[off:]
	return len(rest) > len(s) && rest[len(s)] == 0 && bytes.Equal(rest[:len(s)], s)
}

// Add returns the offset of s, which must hold no NUL, appending it if it
// is not there yet; false if it is new and its offset would exceed the
// limit (SetLimit), and then nothing is added.
func (t *Set[S]) Add(s []byte) (uint32, bool) { return t.AddHash(s, t.Hash(s)) }

// AddHash is Add, with h the hash of s: one probe finds s or the slot
// where it goes.
func (t *Set[S]) AddHash(s []byte, h uint64) (uint32, bool) {
	// Guarded by builder's BenchmarkMinimalTaskStruct and dedup's
	// BenchmarkMerged.
	if t.full(1) {
		t.grow()
	}
	i, slot, ok := t.probe(s, h)
	if ok {
		return uint32(slot & offMask[S]()), true
	}
	n := len(t.data)
	if n > t.limit {
		return 0, false
	}
	if t.mapped {
		t.ReserveData(len(s) + 1)
	}
	// Two appends to t.data itself: the compiler then writes the slice's
	// pointer only when it grows, which keeps the loop free of write
	// barriers while the GC runs.
	t.data = append(t.data, s...)
	t.data = append(t.data, 0)
	t.slots[i] = slot | S(n)
	t.count++
	return uint32(n), true
}

// SetLimit lowers the largest offset a new string may take (by default
// what a slot holds): Add fails beyond it, and always if max is negative.
func (t *Set[S]) SetLimit(max int) { t.limit = min(max, int(offMask[S]())) }

// Index indexes every string of the data that starts after a NUL (or at
// 0), each at its lowest offset, as libbpf's btf__find_str finds them.
// Empty strings and bytes after the last NUL are not indexed, nor strings
// beyond the limit.
func (t *Set[S]) Index() { t.index(nil) }

// releaseEvery is how many bytes of data index reads between two calls
// of its release.
const releaseEvery = 1 << 18

// index is Index, calling release, if set, every releaseEvery bytes of
// data read, as the strings are counted and as they are indexed.
func (t *Set[S]) index(release func()) {
	data := t.data
	n := 0
	for lo := 0; lo < len(data); lo += releaseEvery {
		n += bytes.Count(data[lo:min(lo+releaseEvery, len(data))], []byte{0})
		if release != nil {
			release()
		}
	}
	t.Reserve(n)
	next := releaseEvery
	for off := 0; off < len(data) && off <= t.limit; {
		i := bytes.IndexByte(data[off:], 0)
		if i < 0 {
			break
		}
		if i > 0 {
			t.insert(uint32(off), data[off:off+i])
		}
		off += i + 1
		if release != nil && off >= next {
			release()
			next = off + releaseEvery
		}
	}
}

// insert indexes the string s at off of data, unless an equal one is
// there.
func (t *Set[S]) insert(off uint32, s []byte) {
	if t.full(1) {
		t.grow()
	}
	if i, tag, ok := t.probe(s, t.Hash(s)); !ok {
		t.slots[i] = tag | S(off)
		t.count++
	}
}

// full reports whether the index would be too full with n more strings.
func (t *Set[S]) full(n int) bool { return t.count+n > t.most }

// setSlots gives the index its slots, and sets how many strings they
// take.
func (t *Set[S]) setSlots(slots []S) {
	t.slots = slots
	if t.dense {
		t.most = 3 * len(slots) / 4
	} else {
		t.most = len(slots) / 2
	}
}

// sizeFor returns the index size for n strings.
func (t *Set[S]) sizeFor(n int) int {
	size := minSlots
	for t.dense && 3*size < 4*n || !t.dense && size < 2*n {
		if size > math.MaxInt32 {
			break
		}
		size *= 2
	}
	return size
}

// Reserve sizes the index for n more strings, so that a large copy does
// not rehash on the way.
func (t *Set[S]) Reserve(n int) {
	if t.full(n) {
		t.resize(t.sizeFor(t.count + n))
	}
}

// ReserveData makes room for n more bytes of strings.
func (t *Set[S]) ReserveData(n int) {
	if len(t.data)+n <= cap(t.data) {
		return
	}
	if t.mapped {
		t.data = mmap.Append(t.data, n, &t.dataMem)
		return
	}
	t.data = slices.Grow(t.data, n)
}

func (t *Set[S]) makeSlots(n int) []S {
	if t.mapped {
		// Every insertion probes before it writes (mmap.Region.Populate).
		return mmap.MakePopulated[S](n, &t.slotsMem)
	}
	return make([]S, n)
}

func (t *Set[S]) grow() { t.resize(max(minSlots, 2*len(t.slots))) }

// resize moves the index to n slots.
func (t *Set[S]) resize(n int) {
	old, mem := t.slots, t.slotsMem
	t.slotsMem = nil
	t.setSlots(t.makeSlots(n))
	t.count = 0
	if t.shared {
		for _, slot := range old {
			if slot != 0 && t.place(slot) {
				t.count++
			}
		}
	} else {
		t.reindex()
	}
	mem.Free()
}

// reindex files the strings of the data from t.first on into the empty
// index. They are all distinct in a Set that appended them itself, and
// reading them in order costs fewer cache misses than following the old
// slots into the data (a copy of a whole vmlinux rehashes 64k strings).
func (t *Set[S]) reindex() {
	mask := uint32(len(t.slots) - 1)
	for off := t.first; off < len(t.data); {
		n := bytes.IndexByte(t.data[off:], 0)
		if n < 0 {
			break // cut by Truncate
		}
		h := t.Hash(t.data[off : off+n])
		i := uint32(h) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = pack[S](h, uint32(off))
		t.count++
		off += n + 1
	}
}

// place puts an existing slot into the index, which does not hold it
// yet, unless its string is no longer ended by a NUL in the data (cut by
// Truncate): false then.
func (t *Set[S]) place(slot S) bool {
	mask := uint32(len(t.slots) - 1)
	// The low bits of the hash are not kept: hash again.
	off := uint32(slot & offMask[S]())
	if int(off) >= len(t.data) {
		return false
	}
	n := bytes.IndexByte(t.data[off:], 0)
	if n < 0 {
		return false
	}
	i := uint32(t.Hash(t.data[off:off+uint32(n)])) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = slot
	return true
}

// Truncate forgets the strings from offset mark on, as if they had never
// been added: an input that fails half-way leaves no string behind, as
// libbpf's btf__add_btf restores the string section's size. mark is a
// Len taken earlier; a string it cuts is forgotten too.
func (t *Set[S]) Truncate(mark int) {
	if mark < 0 || mark >= len(t.data) {
		return
	}
	t.data = t.data[:mark]
	t.resize(max(minSlots, len(t.slots)))
}

// FreeIndex gives back the index; the Set may then only be read through
// Data.
func (t *Set[S]) FreeIndex() {
	mmap.Free(&t.slotsMem)
	t.slots, t.most = nil, 0
}

// Free gives back the Set's mappings; it must not be used afterwards.
func (t *Set[S]) Free() {
	mmap.Free(&t.dataMem, &t.slotsMem)
	t.data, t.slots, t.most = nil, nil, 0
}
