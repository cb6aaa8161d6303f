package builder

import (
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// WriteMinimal writes to w the bytes that Minimal(s, want, mopts) and then
// Write(w, opts) give. A closure of more than a few MB of records is not
// held: what stays in memory is then a few bits for every type of s's
// chain (the closure and its numbering) and the output's strings as
// WriteCopy holds them, and the records go to w one buffer at a time, as
// they are copied, read twice (once to collect the strings, whose
// section's size the header states before the records). A smaller one is
// copied into a Builder and written from it, which costs less time.
//
// Minimal's errors (a name that matches nothing, wrapping btf.ErrNotFound;
// names that reach more types than BTF holds, wrapping ErrTooManyTypes; a
// closed Spec) and the copy's come before anything is written; a failed
// write is returned as it is.
func WriteMinimal(w io.Writer, s *btf.Spec, want []Want, mopts MinimalOptions, opts Options) error {
	b, c, err := newMinimalOutput(s, want, mopts)
	switch {
	case err != nil:
		return err
	case c == nil:
		return b.Write(w, opts)
	}
	defer c.free()
	return c.write(w, opts)
}

// WriteMinimalELF is WriteMinimal for the ELF object that MarshalELF
// writes.
func WriteMinimalELF(w io.Writer, s *btf.Spec, want []Want, mopts MinimalOptions, opts Options) error {
	b, c, err := newMinimalOutput(s, want, mopts)
	switch {
	case err != nil:
		return err
	case c == nil:
		return b.WriteELF(w, opts)
	}
	defer c.free()
	return c.writeELF(w, opts)
}

// heldMinimal is the size of the records up to which WriteMinimal copies
// the closure into a Builder: below it, holding them costs less time
// than two reads and the input's eviction, and little memory (BENCH.md).
var heldMinimal = 4 << 20

// newMinimalOutput finds and numbers Minimal's closure, and copies it into
// the Builder it returns if it is small; else it reads it once for its
// strings, as newStreamCopy reads a whole Spec, and returns the stream.
func newMinimalOutput(s *btf.Spec, want []Want, opts MinimalOptions) (*Builder, *streamCopy, error) {
	b := New()
	m, err := b.minimalWalk(s, want, opts)
	if err != nil {
		return nil, nil, err
	}
	if m.recBytes <= heldMinimal {
		return b, nil, b.fillMinimal(m)
	}
	c := &streamCopy{b: b, srcs: m.srcs, min: m}
	if err := c.collectStrings(nil); err != nil {
		c.free()
		return nil, nil, err
	}
	return b, c, nil
}
