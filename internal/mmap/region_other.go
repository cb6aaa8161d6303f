//go:build !linux

package mmap

// newAnon allocates size bytes on the heap: without mremap(2), a region
// grows by copying, as a slice does.
func newAnon(size int) (*Region, error) { return &Region{b: make([]byte, size)}, nil }

// remap returns r's bytes grown to size.
func (r *Region) remap(size int) ([]byte, error) {
	return append(r.b, make([]byte, size-len(r.b))...), nil
}

// populate does nothing: anonymous regions are on the heap.
func populate(b []byte, off, n int) {}

// PopulateBytes does nothing.
func PopulateBytes(b []byte) {}
