//go:build unix

package mmap

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// File maps size bytes of f into a Region, read-only and private (the
// kernel refuses shared mappings of /sys/kernel/btf/vmlinux; a private
// read-only mapping shares the page cache all the same). It does not
// populate the page tables up front (MAP_POPULATE): a reader touches a
// part of the file, and the faults on the pages it touches map 16 pages
// each (see BENCH.md). The Region's Free unmaps it. size 0 gives an empty
// Region. Callers fall back to reading the file when it fails (older
// kernels' sysfs files cannot be mapped).
func File(f *os.File, size int64) (*Region, error) {
	if size == 0 {
		return &Region{}, nil
	}
	if size < 0 || int64(int(size)) != size {
		return nil, fmt.Errorf("mmap: map %s: size %d out of range", f.Name(), size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return &Region{b: b, kind: file}, nil
}

// Release tells the kernel that the pages wholly inside b, a part of a
// Region made by File, are not needed for now (MADV_DONTNEED): they leave
// the process's resident memory, and are read again from the file (the
// page cache) if touched later, with the same contents, since the mapping
// is read-only. b must lie in a Region File made, or in memory never read
// again: anonymous pages read back as zeros. Errors are ignored: the pages
// merely stay.
func Release(b []byte) {
	page := uintptr(os.Getpagesize())
	if uintptr(len(b)) < page {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return
	}
	unix.Madvise(b[lo-start:hi-start], unix.MADV_DONTNEED)
}
