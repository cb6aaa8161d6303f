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

// StringsRange returns where the string section of raw BTF lies: its
// offset from the start of the BTF and its length. head holds the first
// bytes of the BTF, at least its whole header (24 bytes, or 32 with a
// layout section; 256 bytes are always enough for headers that BTF
// producers write). It checks the header as Parse does, except that it
// cannot check that the sections lie within the BTF, whose size it is not
// given: a caller reading the section must check that it got all of it.
//
// Every name of the BTF's types is a NUL-terminated suffix of a string in
// this section (or, for split BTF, in its base's), which lets a caller rule
// out, by reading the strings alone, BTF that cannot hold a name.
func StringsRange(head []byte) (off, n int64, err error) {
	_, _, hdr, err := parseHeader(head, true)
	if err != nil {
		return 0, 0, err
	}
	return int64(hdr.HdrLen) + int64(hdr.StrOff), int64(hdr.StrLen), nil
}
