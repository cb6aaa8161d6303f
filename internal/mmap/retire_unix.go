//go:build unix

package mmap

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// retire gives back a mapping. In a debug build it keeps the range
// reserved: its pages are dropped (MADV_DONTNEED) and it is made
// inaccessible, so that any later use faults and no later mapping lands
// there.
func retire(b []byte) error {
	if !debug {
		return unix.Munmap(b)
	}
	unix.Madvise(b, unix.MADV_DONTNEED)
	return unix.Mprotect(b, unix.PROT_NONE)
}

// retireFile is retire for a file's mapping, which File made at an
// address of its choosing rather than through unix.Mmap (whose Munmap
// knows only its own mappings).
func retireFile(b []byte) error {
	if !debug {
		return unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
	}
	return retire(b)
}

// vacate replaces the pages of b, a mapping, with anonymous read-only
// ones that read as zeros (the shared zero page, which is not counted as
// resident): b's memory is given back, its range stays mapped.
func vacate(b []byte) error {
	_, err := unix.MmapPtr(-1, 0, unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)),
		unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	return err
}
