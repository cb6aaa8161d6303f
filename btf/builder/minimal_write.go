package builder

import (
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// WriteMinimal writes to w the bytes that Minimal(s, want, mopts) and then
// Write(w, opts) give, without holding them: what stays in memory is a few
// bits for every type of s's chain (the closure and its numbering) and
// the output's strings as WriteCopy holds them. The records go to w one
// buffer at a time, as they are copied, so that a closure as large as the
// input is not held beside it.
//
// It reads the closure twice: once to collect the strings, whose section's
// size the header states before the records, and once to write the
// records. Minimal's errors (a name that matches nothing, wrapping
// btf.ErrNotFound; names that reach more types than BTF holds, wrapping
// ErrTooManyTypes; a closed Spec) and the copy's come before anything is
// written; a failed write is returned as it is.
func WriteMinimal(w io.Writer, s *btf.Spec, want []Want, mopts MinimalOptions, opts Options) error {
	c, err := newStreamMinimal(s, want, mopts)
	if err != nil {
		return err
	}
	defer c.free()
	return c.write(w, opts)
}

// WriteMinimalELF is WriteMinimal for the ELF object that MarshalELF
// writes.
func WriteMinimalELF(w io.Writer, s *btf.Spec, want []Want, mopts MinimalOptions, opts Options) error {
	c, err := newStreamMinimal(s, want, mopts)
	if err != nil {
		return err
	}
	defer c.free()
	return c.writeELF(w, opts)
}

// newStreamMinimal finds and numbers Minimal's closure, then reads it once
// for its strings, as newStreamCopy reads a whole Spec.
func newStreamMinimal(s *btf.Spec, want []Want, opts MinimalOptions) (*streamCopy, error) {
	b := New()
	m, err := b.minimalWalk(s, want, opts)
	if err != nil {
		return nil, err
	}
	c := &streamCopy{b: b, srcs: m.srcs, min: m}
	if err := c.collectStrings(nil); err != nil {
		c.free()
		return nil, err
	}
	return c, nil
}
