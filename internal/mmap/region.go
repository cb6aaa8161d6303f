package mmap

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"unsafe"
)

// Region owns one mapping, or a heap slice where there is no mapping of
// its kind (see the package documentation). The zero value holds
// nothing. Its methods panic after Free: every slice it gave out is
// invalid then.
type Region struct {
	b     []byte // the whole mapping
	kind  kind
	freed bool
	// populated is how many bytes from the start Cover has populated.
	populated int
	// counted is set for a Region that New or File made: it is in live
	// until freed.
	counted bool
	// mapping is a file mapping's entry in refusals, until freed.
	mapping *fileMapping
}

// live counts the Regions that New and File made and Free has not freed.
var live atomic.Int64

// Live returns how many Regions New and File (and so Make and Append)
// made that are not freed yet: code that must give back what it maps on
// every path, errors included, is checked by a count that returns to
// where it was.
func Live() int { return int(live.Load()) }

// counted returns r, counted in live.
func counted(r *Region) *Region {
	r.counted = true
	live.Add(1)
	return r
}

type kind uint8

const (
	heap kind = iota // a heap slice: Free drops it
	anon             // an anonymous private mapping
	file             // a file's read-only private mapping
)

var pageSize = os.Getpagesize()

// usedAfterFree is the panic of a Region's methods after Free.
const usedAfterFree = "mmap: Region used after Free"

func (r *Region) check() {
	if r.freed {
		panic(usedAfterFree)
	}
}

// Bytes returns the whole region. It is invalid after Grow or Free.
func (r *Region) Bytes() []byte {
	r.check()
	return r.b
}

// Len returns the region's size in bytes.
func (r *Region) Len() int {
	r.check()
	return len(r.b)
}

// Free gives the memory back; nothing of it may be used afterwards. It is
// safe on a nil Region and safe to call more than once.
func (r *Region) Free() error {
	if r == nil || r.freed {
		return nil
	}
	b, k := r.b, r.kind
	if r.counted {
		live.Add(-1)
	}
	if r.mapping != nil {
		refusals.remove(r.mapping)
	}
	*r = Region{freed: true}
	if k == heap || len(b) == 0 {
		return nil
	}
	unmap := retire
	if k == file {
		unmap = retireFile
	}
	if err := unmap(b); err != nil {
		return fmt.Errorf("mmap: unmap %d bytes: %w", len(b), err)
	}
	return nil
}

// Vacate is Free for a region that other goroutines may still be
// reading: its memory is given back at once as Free's is, but its range
// stays mapped, read-only, to pages that read as zeros and cost nothing,
// until unmap runs (after which a read faults, as after Free). It is
// for an owner that cannot know that its readers are gone (btf.Spec's
// Close) and unmaps when the collector says so. Nothing of the region
// may be used through r afterwards; it is safe on a nil Region and
// after Free, and unmap is then a no-op.
func (r *Region) Vacate() (unmap func() error, err error) {
	nop := func() error { return nil }
	if r == nil || r.freed {
		return nop, nil
	}
	b, k := r.b, r.kind
	if k == heap || len(b) == 0 {
		return nop, r.Free()
	}
	if err := vacate(b); err != nil {
		return nop, r.Free() // unmapped: readers may fault, as before
	}
	if r.counted {
		live.Add(-1)
	}
	if r.mapping != nil {
		refusals.remove(r.mapping)
	}
	*r = Region{freed: true}
	unmapOf := retire
	if k == file {
		unmapOf = retireFile
	}
	return func() error {
		if err := unmapOf(b); err != nil {
			return fmt.Errorf("mmap: unmap %d bytes: %w", len(b), err)
		}
		return nil
	}, nil
}

// New returns an anonymous region of size bytes (at least one page),
// zeroed, whose pages cost memory only once written.
func New(size int) (*Region, error) {
	if size < 0 {
		return nil, fmt.Errorf("mmap: size %d out of range", size)
	}
	r, err := newAnon(max(size, pageSize))
	if err != nil {
		return nil, err
	}
	return counted(r), nil
}

// Grow makes an anonymous region size bytes long, keeping its contents,
// and returns it (possibly at a new address: slices of the old one are
// invalid then). A smaller size changes nothing.
func (r *Region) Grow(size int) ([]byte, error) {
	r.check()
	if size <= len(r.b) {
		return r.b, nil
	}
	if r.kind == file {
		return r.b, fmt.Errorf("mmap: Grow of a file's mapping")
	}
	b, err := r.remap(size)
	if err != nil {
		return r.b, fmt.Errorf("mmap: grow to %d bytes: %w", size, err)
	}
	r.b = b
	return b, nil
}

// Populate makes the pages of bytes off..off+n of an anonymous region
// present and writable at once (MADV_POPULATE_WRITE, Linux 5.14), for
// memory that will be written: one system call instead of a page fault
// per page, and no fault of a page read before it is written, which maps
// it first to the shared zero page and then, at the write, to a page of
// its own, flushing the old mapping from the TLB of every CPU the process
// runs on, as a hash table's probes before its insertions do. Pages
// populated cost memory as written ones do. Elsewhere it does nothing.
func (r *Region) Populate(off, n int) {
	if r == nil {
		return
	}
	r.check()
	if r.kind == anon {
		populate(r.b, off, n)
	}
}

// MinSlice is the fewest bytes worth a mapping of their own: Make and
// Grow keep smaller slices on the heap.
const MinSlice = 64 << 10

// sizeOf is the size of a T.
func sizeOf[T any]() int { return int(unsafe.Sizeof(*new(T))) }

// view returns b as a slice of T.
func view[T any](b []byte) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/sizeOf[T]())
}

// Make returns n zeroed elements in a new anonymous region, which *r then
// owns (*r must be nil), or on the heap, *r left nil, if they are fewer
// than MinSlice bytes or the mapping fails. Pages never written cost no
// memory, and Free gives the others back at once.
//
// T must hold no pointers: the garbage collector does not scan mappings.
func Make[T any](n int, r **Region) []T {
	size := sizeOf[T]()
	if n*size < MinSlice {
		return make([]T, n)
	}
	m, err := New(n * size)
	if err != nil {
		return make([]T, n)
	}
	*r = m
	return view[T](m.b)[:n]
}

// MakePopulated is Make for elements that will all be written, or read
// before they are written (a hash table's slots): if they are in a
// region, its pages are made present and writable at once (see
// Region.Populate).
func MakePopulated[T any](n int, r **Region) []T {
	s := Make[T](n, r)
	(*r).Populate(0, n*sizeOf[T]())
	return s
}

// Append returns s with room for n more elements, in *r's region, which
// it makes if *r is nil and s needs MinSlice bytes or more: a smaller s
// grows on the heap, as Make keeps it. s is in that region unless it was
// never grown there (its first elements, on the heap) or an append
// outgrew it (then on the heap too): either way its elements are copied
// over. If the mapping fails, s grows on the heap.
//
// A mapping of its own for each small array cost a small object's
// encoding a mapping, its page faults and an unmapping for each of about
// twenty arrays of a few kilobytes (cmd/kmeta/BENCH.md, "Small objects").
//
// T must hold no pointers: the garbage collector does not scan mappings.
func Append[T any](s []T, n int, r **Region) []T {
	return appendIn(s, n, r, true)
}

// AppendMapped is Append for an array that lives in *r's region from its
// first growth, however small: a buffer reused from input to input and
// given back with its region (internal/dedup's Prepared), which on the
// heap would stay live to the end and raise the collector's goal with it
// (the 1,121 modules of Debian 6.1 deduplicated on their vmlinux peaked
// 3.9 MB higher with Prepared's buffers on the heap).
func AppendMapped[T any](s []T, n int, r **Region) []T {
	return appendIn(s, n, r, false)
}

// appendIn is Append, or AppendMapped if not smallOnHeap.
func appendIn[T any](s []T, n int, r **Region, smallOnHeap bool) []T {
	need := len(s) + n
	if cap(s) >= need {
		return s
	}
	size := sizeOf[T]()
	if smallOnHeap && *r == nil && need*size < MinSlice {
		return slices.Grow(s, max(need, 2*cap(s))-len(s))
	}
	c := max(need, 2*cap(s), MinSlice/size)
	var old *T
	var b []byte
	var err error
	if *r == nil {
		*r, err = New(size * c)
		if err == nil {
			b = (*r).b
		}
	} else {
		old = (*T)(unsafe.Pointer(unsafe.SliceData((*r).Bytes())))
		b, err = (*r).Grow(size * c)
	}
	if err != nil {
		return slices.Grow(s, c-len(s))
	}
	ns := view[T](b)[:len(s)]
	if unsafe.SliceData(s) != old {
		copy(ns, s)
	}
	return ns
}

// Free frees the regions rs point to and sets them to nil; each may be
// nil.
func Free(rs ...**Region) {
	for _, r := range rs {
		(*r).Free()
		*r = nil
	}
}

// MinPopulate is how long a slice grows before Cover populates ahead of
// it: a deduplication of one module appends a few kilobytes of records
// to a new mapping, and populating 128 KB of it for them cost more than
// the page faults it saved.
const MinPopulate = 256 << 10

// aheadChunk is how far Cover populates at a time.
const aheadChunk = 128 << 10

// Cover makes sure elements len(s) to n of s, in r (see Append), are
// populated (see Region.Populate) before they are written, once the slice
// is MinPopulate bytes long: ahead of what is written, by as much as is
// written already and at most a chunk, a system call per chunk instead of
// a page fault per page. It does nothing if s is not at the start of r.
func Cover[T any](s []T, r *Region, n int) {
	if r == nil {
		return
	}
	r.check()
	if r.kind != anon || len(r.b) == 0 || unsafe.Pointer(unsafe.SliceData(s)) != unsafe.Pointer(unsafe.SliceData(r.b)) {
		return // not in the region (see Append)
	}
	size := sizeOf[T]()
	end := n * size
	if end <= r.populated || end < MinPopulate {
		return
	}
	// From what is not written yet (s's elements are), ahead by what is
	// written already, up to a chunk.
	from := max(r.populated, len(s)*size)
	to := min(end+min(aheadChunk, end), len(r.b))
	if to > from {
		populate(r.b, from, to-from)
	}
	r.populated = to
}
