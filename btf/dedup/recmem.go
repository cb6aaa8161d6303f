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

// plain lists the element types kept in mappings: none holds a pointer,
// which the collector would not see there.
type plain interface {
	uint16 | uint32 | uint64 | byte | slot | entry
}

// minMapped is the fewest bytes worth a mapping of their own; smaller
// slices stay on the heap.
const minMapped = 64 << 10

// growMapped returns s with room for n more elements, in *g's mapping. s
// is in that mapping unless it was never grown there (its first elements,
// on the heap) or an append outgrew it (then on the heap too): either way
// its elements are copied over. If the mapping fails, s grows on the heap.
func growMapped[T plain](s []T, n int, g **mmap.Growable) []T {
	need := len(s) + n
	if cap(s) >= need {
		return s
	}
	size := int(unsafe.Sizeof(*new(T)))
	c := max(need, 2*cap(s), minMapped/size)
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

// makeMapped returns n zeroed elements in a new mapping, which *g then
// holds (*g must hold none), or on the heap if they are few or the mapping
// fails. Pages never written cost no memory, and *g's Free gives the
// others back at once, where the heap would keep them until a collection.
func makeMapped[T plain](n int, g **mmap.Growable) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if n*size < minMapped {
		return make([]T, n)
	}
	m, err := mmap.NewGrowable(n * size)
	if err != nil {
		return make([]T, n)
	}
	*g = m
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m.Bytes()))), n)
}

// freeMapped frees the mappings gs point to and forgets them; each may be
// nil or hold nothing.
func freeMapped(gs ...**mmap.Growable) {
	for _, g := range gs {
		(*g).Free()
		*g = nil
	}
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
