package mmap

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// newAnon maps size bytes, anonymous and private.
func newAnon(size int) (*Region, error) {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("mmap: map %d bytes: %w", size, err)
	}
	return &Region{b: b, kind: anon}, nil
}

// remap returns r's mapping grown to size bytes. In a debug build it
// copies it to a new mapping and retires the old one, so that its range
// is never reused.
func (r *Region) remap(size int) ([]byte, error) {
	if r.kind == heap {
		return append(r.b, make([]byte, size-len(r.b))...), nil
	}
	if !debug {
		return unix.Mremap(r.b, size, unix.MREMAP_MAYMOVE)
	}
	n, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	copy(n, r.b)
	if err := retire(r.b); err != nil {
		unix.Munmap(n)
		return nil, err
	}
	return n, nil
}

// populate is Populate on b, which starts on a page.
func populate(b []byte, off, n int) {
	end := min(off+n, len(b))
	off -= off % pageSize // madvise starts on a page; the length is rounded up
	if off >= 0 && end > off {
		unix.Madvise(b[off:end], unix.MADV_POPULATE_WRITE)
	}
}

// PopulateBytes is Region.Populate for the pages of b from its first page
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
