package btf

// TypeSection returns the Spec's own type section, in host byte order: the
// records of its types FirstID to LastID, one after the other (see
// Type.Record for one of them). The bytes belong to the Spec and must not be
// modified; they are valid until the Spec is closed, after which
// TypeSection returns nil.
//
// Printers that read every record many times (btf/cdump) walk the section
// once and keep offsets into it, which costs less than a Type per id and
// holds no pointers for the garbage collector to scan.
func (s *Spec) TypeSection() []byte {
	if !s.alive() {
		return nil
	}
	return s.types
}
