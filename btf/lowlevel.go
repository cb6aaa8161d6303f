package btf

import "github.com/kmeta-dev/kmeta/btf/internal/wire"

// This file is the low-level section of the API (see "Low-level access" in
// the package documentation): the wire bytes behind the views, for the
// sibling packages that copy or print every record.

// Record returns the bytes of t's type record, in host byte order: the
// 12-byte fixed part and what follows it, as the Spec's layouts size it.
// It returns nil for void and once the Spec is closed. The bytes belong to
// the Spec and must not be modified; they are valid until Close.
//
// Writers (btf/builder) copy records this way and patch their type ids and
// string offsets, instead of decoding every field through the accessors.
func (t Type) Record() []byte {
	r := t.rec()
	if r == nil {
		return nil
	}
	size, _ := t.spec.layouts.RecordSize(wire.Record(r).Info())
	return r[:size:size]
}

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
