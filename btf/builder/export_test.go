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
