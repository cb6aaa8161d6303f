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
