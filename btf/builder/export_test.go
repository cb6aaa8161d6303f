package builder

import "github.com/kmeta-dev/kmeta/btf"

// CopiesInPlace reports whether WriteCopy of the standalone s writes the
// input's own string section (inPlace).
func CopiesInPlace(s *btf.Spec) (bool, error) {
	c, err := newStreamCopy(s, nil)
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
