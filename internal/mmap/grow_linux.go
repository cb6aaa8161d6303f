package mmap

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Growable is memory for data of unknown size, from an anonymous private
// mapping that grows in place: mremap(2) moves page tables, not bytes, so
// growing never holds two copies of the data, and pages never written cost
// no memory. Free releases it; the zero value has nothing to free.
type Growable struct {
	b []byte // the whole mapping
}

// NewGrowable maps size bytes (at least one page).
func NewGrowable(size int) (*Growable, error) {
	size = max(size, unix.Getpagesize())
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("mmap %d bytes: %w", size, err)
	}
	return &Growable{b: b}, nil
}

// Bytes returns the whole mapping; it is invalid after Grow or Free.
func (g *Growable) Bytes() []byte { return g.b }

// Grow makes the mapping size bytes long, keeping its contents, and
// returns it (possibly at a new address).
func (g *Growable) Grow(size int) ([]byte, error) {
	if size <= len(g.b) {
		return g.b, nil
	}
	b, err := unix.Mremap(g.b, size, unix.MREMAP_MAYMOVE)
	if err != nil {
		return g.b, fmt.Errorf("mremap to %d bytes: %w", size, err)
	}
	g.b = b
	return b, nil
}

// Free unmaps the memory. Slices of it must not be used afterwards.
func (g *Growable) Free() error {
	if g == nil || g.b == nil {
		return nil
	}
	b := g.b
	g.b = nil
	return unix.Munmap(b)
}

// Populate makes the pages of bytes off..off+n of the mapping present
// and writable at once (MADV_POPULATE_WRITE, Linux 5.14), for memory that
// will be written: one system call instead of a page fault per page, and
// no fault of a page read before it is written, which maps it first to
// the shared zero page and then, at the write, to a page of its own,
// flushing the old mapping from the TLB of every CPU the process runs on
// (an interrupt to each), as a hash table's probes before its insertions
// do. Pages populated cost memory as written ones do. On older kernels it
// does nothing.
func (g *Growable) Populate(off, n int) {
	if g == nil || g.b == nil {
		return
	}
	populate(g.b, off, n)
}

// populate is Populate on b, which starts on a page.
func populate(b []byte, off, n int) {
	end := min(off+n, len(b))
	off -= off % pageSize // madvise starts on a page; the length is rounded up
	if off >= 0 && end > off {
		unix.Madvise(b[off:end], unix.MADV_POPULATE_WRITE)
	}
}

var pageSize = unix.Getpagesize()

// PopulateBytes is Populate for the pages of b from its first page
// boundary on, in memory of the Go heap (a large output about to be
// written).
func PopulateBytes(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	skip := int((uintptr(pageSize) - start%uintptr(pageSize)) % uintptr(pageSize))
	if skip < len(b) {
		populate(b[skip:], 0, len(b)-skip)
	}
}
