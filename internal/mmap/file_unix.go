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
		return counted(&Region{}), nil
	}
	if size < 0 || int64(int(size)) != size {
		return nil, fmt.Errorf("mmap: map %s: size %d out of range", f.Name(), size)
	}
	b, err := mapOffPMD(f, int(size))
	if err != nil {
		return nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	r := &Region{b: b, kind: file}
	refusals.add(r)
	return counted(r), nil
}

// pmd is the span of one page table on Linux's 64-bit architectures (a
// huge page on x86-64 and arm64 with 4 KB pages).
const pmd = 2 << 20

// mapOffPMD maps size bytes of f read-only at an address whose offset in
// a pmd span is half of one, never a multiple of pmd. The page cache
// keeps a file in folios of up to 2 MB, and Linux maps a fault's whole
// folio (or a huge page) when the folio's range lies within one page
// table: a reader that touches a byte of an aligned mapping then holds
// up to 2 MB, and Release of the pages it has read gives back nothing
// that its next read does not map again. Here the large folios straddle
// page tables and a fault maps the pages around it (fault-around, 64
// KB), so a reader that releases what it has read holds little of the
// file (btf/builder's WriteCopy, internal/mmap/BENCH.md). The mapping
// falls back to wherever the kernel puts it when the reservation fails.
func mapOffPMD(f *os.File, size int) ([]byte, error) {
	span := size + 2*pmd
	res, err := unix.MmapPtr(-1, 0, nil, uintptr(span), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return mapFile(f, nil, size, 0)
	}
	head := int(-uintptr(res)&(pmd-1)) + pmd/2
	b, err := mapFile(f, unsafe.Add(res, head), size, unix.MAP_FIXED)
	if err != nil {
		unix.MunmapPtr(res, uintptr(span))
		return nil, err
	}
	// The reservation's head and tail go back; the file's mapping
	// replaced the middle.
	tail := head + (size+pageSize-1)&^(pageSize-1)
	unix.MunmapPtr(res, uintptr(head))
	if tail < span {
		unix.MunmapPtr(unsafe.Add(res, tail), uintptr(span-tail))
	}
	return b, nil
}

// mapFile maps size bytes of f read-only at addr (a hint, or the place
// with MAP_FIXED in flags).
func mapFile(f *os.File, addr unsafe.Pointer, size, flags int) ([]byte, error) {
	p, err := unix.MmapPtr(int(f.Fd()), 0, addr, uintptr(size), unix.PROT_READ, unix.MAP_PRIVATE|flags)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), size), nil
}

// Release tells the kernel that the pages wholly inside b, a part of a
// Region made by File, are not needed for now (MADV_DONTNEED): they leave
// the process's resident memory, and are read again from the file (the
// page cache) if touched later, with the same contents, since the mapping
// is read-only. b must lie in a Region File made, or in memory never read
// again: anonymous pages read back as zeros. Errors are ignored: the pages
// merely stay. A file's mapping that refuses the release (EINVAL: the
// kernel maps /sys/kernel/btf/vmlinux with remap_pfn_range, whose pages
// are not the process's to drop, and locked pages) is not asked again
// until it is freed: a reader that releases behind every part it reads
// would otherwise make a failing system call for each.
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
	m := refusals.find(lo)
	if m != nil && m.refuses.Load() {
		return
	}
	if err := madvise(b[lo-start:hi-start], unix.MADV_DONTNEED); err == unix.EINVAL && m != nil {
		m.refuses.Store(true)
	}
}

// madvise is the system call Release makes (a variable for the tests,
// which count the calls).
var madvise = unix.Madvise

// Writable lets the holder of a Region that File made write to it. The
// mapping is private: a page written becomes a copy of the process's own
// (copy on write), and the file is never changed; a page not written
// stays the file's, which Release can still give back. Release of a
// written page drops what was written: the page reads as the file again.
// Any other Region is writable already.
func (r *Region) Writable() error {
	r.check()
	if r.kind != file || len(r.b) == 0 {
		return nil
	}
	if err := unix.Mprotect(r.b, unix.PROT_READ|unix.PROT_WRITE); err != nil {
		return fmt.Errorf("mmap: make %d bytes writable: %w", len(r.b), err)
	}
	return nil
}
