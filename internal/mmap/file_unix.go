//go:build unix

package mmap

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// File maps size bytes of f, read-only and private (the kernel refuses
// shared mappings of /sys/kernel/btf/vmlinux; a private read-only mapping
// shares the page cache all the same). It does not populate the page
// tables up front (MAP_POPULATE): for /sys/kernel/btf/vmlinux that made no
// measurable difference (bench's BenchmarkOpen, BenchmarkFindTaskStruct),
// and for a file in the page cache, the faults on the pages a reader
// touches, which map 16 pages each, cost 0.3 ms less on Debian 6.1's
// vmlinux BTF than populating all of it, strings included (bench's
// BenchmarkKernelModules reads it from a file). It returns the mapping
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
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return b, func() error { return unix.Munmap(b) }, nil
}
