package mmap

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Resident reports which pages of b, which starts on a page, are in
// memory (mincore(2)): how tests check that memory costs only the pages
// written. As root, mincore also reports pages of a file mapping that
// are in the page cache but not mapped by the process.
func Resident(b []byte) ([]bool, error) {
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		return nil, fmt.Errorf("mmap: mincore: %w", errno)
	}
	in := make([]bool, len(vec))
	for i, v := range vec {
		in[i] = v&1 != 0
	}
	return in, nil
}
