package dedup

import (
	"slices"
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// recMem keeps a Merger's records outside the Go heap, in anonymous
// mappings that grow in place (mmap.Growable: mremap moves page tables,
// not words). A DWARF encoder appends a vmlinux's 3.4 million types, 130
// MB of records; grown by copying on the heap, they left the earlier
// copies resident until the collector's scavenger returned them (about
// 400 MB of the encoder's peak), and counted twice in the collector's
// pacing. The mappings are freed by free, when the Merger deduplicates, or
// by a cleanup if it is dropped before.
type recMem struct {
	w, off *mmap.Growable
	keys   *mmap.Growable // a Builder's string keys (builderSource.keys)
}

// growMapped returns s with room for n more elements, in *g's mapping. s
// is in that mapping unless it was never grown there (its first elements,
// on the heap) or an append outgrew it (then on the heap too): either way
// its elements are copied over. If the mapping fails, s grows on the heap.
func growMapped[T uint16 | uint32](s []T, n int, g **mmap.Growable) []T {
	need := len(s) + n
	if cap(s) >= need {
		return s
	}
	c := max(need, 2*cap(s), 1<<12)
	size := int(unsafe.Sizeof(T(0)))
	var old *T
	var b []byte
	var err error
	if *g == nil {
		*g, err = mmap.NewGrowable(size * c)
		if err == nil {
			b = (*g).Bytes()
		}
	} else {
		old = (*T)(unsafe.Pointer(unsafe.SliceData((*g).Bytes())))
		b, err = (*g).Grow(size * c)
	}
	if err != nil {
		return slices.Grow(s, c-len(s))
	}
	ns := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)[:len(s)]
	if unsafe.SliceData(s) != old {
		copy(ns, s)
	}
	return ns
}

// free unmaps the records' memory; the records must not be used after.
func (m *recMem) free() {
	m.w.Free()
	m.off.Free()
	m.freeKeys()
	m.w, m.off = nil, nil
}

// freeKeys unmaps the string keys; they must not be used after.
func (m *recMem) freeKeys() {
	m.keys.Free()
	m.keys = nil
}
