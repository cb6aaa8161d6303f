package mmap

import (
	"fmt"

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

// Populate makes the pages of the mapping's first n bytes present and
// writable at once (MADV_POPULATE_WRITE, Linux 5.14), for memory that
// will be written all over and read before it is written, as a hash
// table's slots are probed before an insertion fills one. A page read
// first is mapped to the shared zero page, and the write that follows
// maps it again to a page of its own; in a process running on several
// CPUs the kernel then flushes the old mapping from each one's TLB, an
// interrupt to each, page after page. On older kernels it does nothing.
func (g *Growable) Populate(n int) {
	if g == nil || g.b == nil {
		return
	}
	if n = min(n, len(g.b)); n > 0 {
		unix.Madvise(g.b[:n], unix.MADV_POPULATE_WRITE)
	}
}
