package btf

// StringSection returns the Spec's own string section and the string offset
// of its first byte: 0 for standalone BTF, the end of the base's strings for
// split BTF. The bytes belong to the Spec and must not be modified; they are
// valid until the Spec is closed, after which StringSection returns nil and
// the start offset. Writers use it to reference strings already present in a
// base instead of copying them (btf/builder).
func (s *Spec) StringSection() (data []byte, start uint32) {
	if !s.alive() {
		return nil, s.strStart
	}
	return s.strs, s.strStart
}
