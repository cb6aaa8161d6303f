package mmap

import (
	"slices"
	"unsafe"
)

// MinSlice is the fewest bytes worth a mapping of their own: MakeSlice
// and GrowSlice keep smaller slices on the heap.
const MinSlice = 64 << 10

// GrowSlice returns s with room for n more elements, in *g's mapping. s
// is in that mapping unless it was never grown there (its first elements,
// on the heap) or an append outgrew it (then on the heap too): either way
// its elements are copied over. If the mapping fails, s grows on the heap.
//
// T must hold no pointers: the garbage collector does not scan mappings.
func GrowSlice[T any](s []T, n int, g **Growable) []T {
	need := len(s) + n
	if cap(s) >= need {
		return s
	}
	size := int(unsafe.Sizeof(*new(T)))
	c := max(need, 2*cap(s), MinSlice/size)
	var old *T
	var b []byte
	var err error
	if *g == nil {
		*g, err = NewGrowable(size * c)
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

// MakeSlice returns n zeroed elements in a new mapping, which *g then
// holds (*g must hold none), or on the heap if they are fewer than
// MinSlice bytes or the mapping fails. Pages never written cost no memory,
// and *g's Free gives the others back at once, where the heap would keep
// them until a collection.
//
// T must hold no pointers: the garbage collector does not scan mappings.
func MakeSlice[T any](n int, g **Growable) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if n*size < MinSlice {
		return make([]T, n)
	}
	m, err := NewGrowable(n * size)
	if err != nil {
		return make([]T, n)
	}
	*g = m
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m.Bytes()))), n)
}

// FreeAll frees the mappings gs point to and forgets them; each may be
// nil or hold nothing.
func FreeAll(gs ...**Growable) {
	for _, g := range gs {
		(*g).Free()
		*g = nil
	}
}

// MakeSlicePopulated is MakeSlice for elements that will all be written,
// or read before they are written (a hash table's slots): if they are in
// a mapping, its pages are made present and writable at once (see
// Growable.Populate).
func MakeSlicePopulated[T any](n int, g **Growable) []T {
	s := MakeSlice[T](n, g)
	if *g != nil {
		(*g).Populate(0, n*int(unsafe.Sizeof(*new(T))))
	}
	return s
}

// MinPopulate is how long a slice grows before Cover populates ahead of
// it: a deduplication of one module appends a few kilobytes of records
// to a new mapping, for which populating ahead costs more than the page
// faults it saves.
const MinPopulate = 256 << 10

// Ahead populates a growing slice's mapping (see Growable.Populate) ahead
// of what is written, by as much as is written already and at most a
// chunk: a system call per chunk instead of a page fault per page, and
// at most a chunk of memory populated and not yet used.
type Ahead struct {
	g    *Growable
	done int // bytes of g populated
}

// aheadChunk is how far Ahead populates at a time.
const aheadChunk = 128 << 10

// Cover makes sure elements len(s) to n of s, in g's mapping (see
// GrowSlice), are populated before they are written, once the slice is
// MinPopulate bytes long. s and g are those of the last call, or a new
// mapping.
func Cover[T any](a *Ahead, s []T, g *Growable, n int) {
	if g == nil || len(g.b) == 0 || unsafe.Pointer(unsafe.SliceData(s)) != unsafe.Pointer(unsafe.SliceData(g.b)) {
		return // not in the mapping (see GrowSlice)
	}
	if a.g != g {
		*a = Ahead{g: g}
	}
	end := n * int(unsafe.Sizeof(*new(T)))
	if end <= a.done || end < MinPopulate {
		return
	}
	// From what is not written yet (s's elements are), ahead by what is
	// written already, up to a chunk.
	from := max(a.done, len(s)*int(unsafe.Sizeof(*new(T))))
	to := min(end+min(aheadChunk, end), len(g.b))
	if to > from {
		g.Populate(from, to-from)
	}
	a.done = to
}
