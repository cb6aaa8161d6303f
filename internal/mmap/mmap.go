// Package mmap maps files read-only into memory. It is the only place in
// kmeta that calls mmap(2).
package mmap

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// File maps size bytes of f, read-only and private (the kernel refuses
// shared mappings of /sys/kernel/btf/vmlinux; a private read-only mapping
// shares the page cache all the same), and populates the page tables at
// once: BTF readers touch every page of the type section when they open it,
// and one populate costs less than a fault per page (BenchmarkFindTaskStruct). It returns the mapping
// and a function that unmaps it. size 0 gives an empty mapping. Callers fall
// back to reading the file when it fails (older kernels' sysfs files cannot
// be mapped).
func File(f *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	if size < 0 || int64(int(size)) != size {
		return nil, nil, fmt.Errorf("mmap %s: size %d out of range", f.Name(), size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return b, func() error { return unix.Munmap(b) }, nil
}
