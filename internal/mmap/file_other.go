//go:build !unix

package mmap

import (
	"fmt"
	"io"
	"os"
)

// File reads size bytes of f into the heap, where there is no mmap(2). It
// returns them and a function that does nothing. size 0 gives an empty
// slice.
func File(f *os.File, size int64) ([]byte, func() error, error) {
	if size < 0 || int64(int(size)) != size {
		return nil, nil, fmt.Errorf("read %s: size %d out of range", f.Name(), size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), b); err != nil {
		return nil, nil, &os.PathError{Op: "read", Path: f.Name(), Err: err}
	}
	return b, func() error { return nil }, nil
}

// Release does nothing where File reads into the heap.
func Release(b []byte) {}
