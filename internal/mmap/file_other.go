//go:build !unix

package mmap

import (
	"fmt"
	"io"
	"os"
)

// File reads size bytes of f into a Region on the heap, where there is
// no mmap(2). size 0 gives an empty Region.
func File(f *os.File, size int64) (*Region, error) {
	if size < 0 || int64(int(size)) != size {
		return nil, fmt.Errorf("mmap: read %s: size %d out of range", f.Name(), size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), b); err != nil {
		return nil, &os.PathError{Op: "read", Path: f.Name(), Err: err}
	}
	return counted(&Region{b: b}), nil
}

// Release does nothing where File reads into the heap.
func Release(b []byte) {}

// Writable does nothing where File reads into the heap.
func (r *Region) Writable() error { return nil }
