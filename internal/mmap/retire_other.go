//go:build !unix

package mmap

// retire does nothing: every region is on the heap.
func retire(b []byte) error { return nil }

// retireFile does nothing: a file is read onto the heap.
func retireFile(b []byte) error { return nil }

// vacate does nothing: every region is on the heap.
func vacate(b []byte) error { return nil }
