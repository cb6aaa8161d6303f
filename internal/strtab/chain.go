package strtab

import "bytes"

// Section is one string section of a string space: its bytes and the
// offset of its first byte in the space (0 for standalone BTF or a base,
// the end of the base's strings for split BTF).
type Section struct {
	Start uint32
	Data  []byte
}

// Chain is a string space as a reader of split BTF sees it: the sections
// of a Spec and of its bases, the Spec's own first (highest Start). It
// only reads; interning is Table's.
type Chain []Section

// String returns the string at offset off of the space, without its NUL;
// nil for offset 0 (the empty string) and for an offset outside every
// section. A section's last string may lack its NUL (btf validates that
// it does not), and is then returned up to the section's end.
func (c Chain) String(off uint32) []byte {
	if off == 0 {
		return nil
	}
	return CString(c.From(off))
}

// From returns the bytes of the space from offset off to the end of its
// section; nil for an offset outside every section.
func (c Chain) From(off uint32) []byte {
	for _, sec := range c {
		if off >= sec.Start {
			off -= sec.Start
			if off >= uint32(len(sec.Data)) {
				return nil
			}
			return sec.Data[off:]
		}
	}
	return nil
}

// CString returns b up to its first NUL, or all of b if it holds none.
func CString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
