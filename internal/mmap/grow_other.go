//go:build !linux

package mmap

// Growable is memory for data of unknown size. Without mremap(2) it is a
// heap slice that grows by copying.
type Growable struct {
	b []byte
}

// NewGrowable allocates size bytes.
func NewGrowable(size int) (*Growable, error) { return &Growable{b: make([]byte, size)}, nil }

// Bytes returns the whole buffer; it is invalid after Grow or Free.
func (g *Growable) Bytes() []byte { return g.b }

// Grow makes the buffer size bytes long, keeping its contents.
func (g *Growable) Grow(size int) ([]byte, error) {
	if size > len(g.b) {
		g.b = append(g.b, make([]byte, size-len(g.b))...)
	}
	return g.b, nil
}

// Free drops the buffer.
func (g *Growable) Free() error {
	if g != nil {
		g.b = nil
	}
	return nil
}

// Populate does nothing: the buffer is on the heap.
func (g *Growable) Populate(off, n int) {}

// PopulateBytes does nothing.
func PopulateBytes(b []byte) {}
