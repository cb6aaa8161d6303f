package builder

import (
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// CopiesInPlace reports whether WriteCopy of the standalone s writes the
// input's own string section (inPlace).
func CopiesInPlace(s *btf.Spec) (bool, error) {
	c, err := newStreamCopy(s, nil, Options{})
	if err != nil {
		return false, err
	}
	defer c.free()
	return c.b.inPlace != nil, nil
}

// StreamMinimal makes WriteMinimal stream every closure, however small,
// until the test or fuzz target tb ends.
func StreamMinimal(tb interface{ Cleanup(func()) }) {
	old := heldMinimal
	heldMinimal = -1
	tb.Cleanup(func() { heldMinimal = old })
}

// CopyWork makes WriteCopy of the standalone s to io.Discard and returns
// its work counts: the bytes of records that its first read encoded
// (none: it only interns), and, where it held its strings by reference
// (refStrings, else -1), the strings it looked up in its index and the
// strings indexed.
func CopyWork(s *btf.Spec) (encoded, finds, strs int, err error) {
	c, err := newStreamCopy(s, nil, Options{})
	if err != nil {
		return 0, 0, 0, err
	}
	defer c.free()
	encoded = cap(c.b.types)
	if err := c.write(io.Discard, Options{}); err != nil {
		return 0, 0, 0, err
	}
	if c.b.refs == nil {
		return encoded, -1, -1, nil
	}
	return encoded, c.b.refs.finds, c.b.refs.count, nil
}

// CopyReads makes WriteCopy (asELF: WriteCopyELF) of s on base to w and
// returns how many times it read s's records.
func CopyReads(w io.Writer, s, base *btf.Spec, opts Options, asELF bool) (int, error) {
	return writeCopy(w, s, base, opts, asELF)
}
