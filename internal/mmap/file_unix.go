//go:build unix

package mmap

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// File maps size bytes of f, read-only and private (the kernel refuses
// shared mappings of /sys/kernel/btf/vmlinux; a private read-only mapping
// shares the page cache all the same). It does not populate the page
// tables up front (MAP_POPULATE): for /sys/kernel/btf/vmlinux that made no
// measurable difference (bench's BenchmarkOpen, BenchmarkFindTaskStruct),
// and for a file in the page cache, the faults on the pages a reader
// touches, which map 16 pages each, cost less than populating all of it,
// strings included (bench's BenchmarkKernelModules reads it from a file).
// It returns the mapping and a function that unmaps it. size 0 gives an
// empty mapping. Callers fall back to reading the file when it fails (older
// kernels' sysfs files cannot be mapped).
func File(f *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	if size < 0 || int64(int(size)) != size {
		return nil, nil, fmt.Errorf("mmap %s: size %d out of range", f.Name(), size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return b, func() error { return unix.Munmap(b) }, nil
}

// Release tells the kernel that the pages wholly inside b, a part of a
// mapping made by File, are not needed for now (MADV_DONTNEED): they leave
// the process's resident memory, and are read again from the file (the
// page cache) if touched later, with the same contents, since the mapping
// is read-only. b must lie in a mapping File made; on memory of any other
// kind (the heap) the call would lose data. Errors are ignored: the pages
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
