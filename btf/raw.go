package btf

import (
	"bytes"
	"context"
	"encoding/binary"
	"iter"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// The raw view: the bytes behind a Spec's views, for code that copies or
// prints every record and would pay for a Type per field (writers,
// deduplication, printers, screening of string sections). It is the view
// kmeta's own subpackages use.
//
// The layout of the bytes is the kernel's (Documentation/bpf/btf.rst: a
// header, a type section of variable-length records, a string section of
// NUL-terminated strings). Every slice is in host byte order, whatever the
// byte order of the input (Spec.ByteOrder says which that was); it belongs
// to the Spec, must not be modified, and is valid until the Spec is
// closed. After Close the accessors return nil.

// Record returns the bytes of t's type record: the 12-byte common part
// (name offset, info, size or type) and the kind-specific data that
// follows it, as the Spec's layout section sizes it. It returns nil for
// void and once the Spec is closed.
func (t Type) Record() []byte {
	r := t.rec()
	if r == nil {
		return nil
	}
	size, _ := t.spec.layouts.RecordSize(wire.Record(r).Info())
	return r[:size:size]
}

// Records iterates over the records of the Spec's own types in id order,
// each as Type.Record returns it, with its type id: the walk of a writer
// that copies every record and would pay for a Type per record (a
// lookup, a size, an interface's worth of state). Nothing is yielded once
// the Spec is closed or has given records back, as Types; a lazy Spec
// yields a record once it is checked, and stops at one that is not sound.
func (s *Spec) Records() iter.Seq2[TypeID, []byte] {
	return func(yield func(TypeID, []byte) bool) {
		if !s.intact() {
			return
		}
		off := uint32(0)
		for i := range s.n {
			id := s.firstID + TypeID(i)
			if s.lazy && s.checkOut(id, off) != nil {
				return
			}
			size := s.sizes.Of(wire.InfoWord(s.types, off))
			if !yield(id, s.types[off:off+size:off+size]) {
				return
			}
			off += size
		}
	}
}

// NameOffset returns the offset of t's name in the string section of its
// Spec chain: base strings first, then the split Spec's own (see
// Spec.StringSection). Zero means no name.
func (t Type) NameOffset() uint32 { return t.nameOff() }

// NameOffset returns the string offset of the member's name, as
// Type.NameOffset does for a type.
func (m Member) NameOffset() uint32 { return m.nameOff }

// NameOffset returns the string offset of the parameter's name, as
// Type.NameOffset does for a type.
func (p Param) NameOffset() uint32 { return p.nameOff }

// NameOffset returns the string offset of the enumerator's name, as
// Type.NameOffset does for a type.
func (v EnumValue) NameOffset() uint32 { return v.nameOff }

// TypeSection returns the Spec's own type section: the records of its
// types FirstID to LastID, one after the other, in host byte order. It
// returns nil once the Spec is closed.
func (s *Spec) TypeSection() []byte {
	if !s.alive() {
		return nil
	}
	return s.types
}

// StringSection returns the Spec's own string section and the string
// offset of its first byte: 0 for standalone BTF, the length of the base's
// strings for split BTF, whose string offsets continue the base's. A name
// offset off of this Spec's types lies in data at off-start when off >=
// start, and in the base's section otherwise. data is nil once the Spec is
// closed.
func (s *Spec) StringSection() (data []byte, start uint32) {
	if !s.alive() {
		return nil, s.strStart
	}
	return s.strs, s.strStart
}

// HeaderLen returns the length of the header the Spec was read with: 24,
// or 32 for BTF with a layout section.
func (s *Spec) HeaderLen() int { return int(s.hdr.HdrLen) }

// Header is a BTF header, as the kernel's struct btf_header. Offsets are
// relative to the end of the header.
type Header struct {
	// ByteOrder is the byte order of the BTF, read from its magic number.
	ByteOrder binary.ByteOrder
	// Len is the length of the header itself (hdr_len).
	Len uint32
	// TypeOff and TypeLen place the type section.
	TypeOff, TypeLen uint32
	// StrOff and StrLen place the string section.
	StrOff, StrLen uint32
	// LayoutOff and LayoutLen place the layout section, which describes
	// the size of each kind's records; both are zero in a 24-byte header,
	// which has none.
	LayoutOff, LayoutLen uint32
	// Flags is the header's flags byte.
	Flags uint8
}

// Strings returns where the string section lies: its offset from the
// start of the BTF, and its length.
func (h Header) Strings() (off, n int64) {
	return int64(h.Len) + int64(h.StrOff), int64(h.StrLen)
}

// ParseHeader decodes and checks the header of raw BTF from its first
// bytes, head, which must hold the whole header (256 bytes are always
// enough). It checks what Parse checks of a header, except that the
// sections lie within the BTF, whose size it is not given.
//
// Every name of a BTF's types is a NUL-terminated suffix of a string in its
// string section (or its base's), so reading that section alone, at
// Len+StrOff for StrLen bytes, can rule out BTF that cannot hold a name.
func ParseHeader(head []byte) (Header, error) {
	order, _, hdr, err := parseHeader(head, true)
	if err != nil {
		return Header{}, err
	}
	return Header{
		ByteOrder: order,
		Len:       hdr.HdrLen,
		TypeOff:   hdr.TypeOff, TypeLen: hdr.TypeLen,
		StrOff: hdr.StrOff, StrLen: hdr.StrLen,
		LayoutOff: hdr.LayoutOff, LayoutLen: hdr.LayoutLen,
		Flags: hdr.Flags,
	}, nil
}

// Extract returns a copy of the raw BTF in data without parsing it beyond
// its header: data itself if it is raw BTF; the .BTF section of an ELF
// file, inflated if the section is compressed; or either of these after
// inflating gzip, xz or zstd data. Split BTF whose base is not at hand yet
// (a module met before its kernel in a package) can be kept this way and
// parsed later with Parse.
//
// distilledBase is a copy of the ELF file's .BTF.base section when it has
// one (a module's BTF on a distilled base; see Relocate), nil otherwise.
// Of opts only MaxSize is used: it bounds what is inflated.
//
// Extract drops the pointer size that an ELF file's class gives: use
// ExtractAll to keep it for a later Parse.
func Extract(ctx context.Context, data []byte, opts Options) (raw, distilledBase []byte, err error) {
	e, err := ExtractAll(ctx, data, opts)
	return e.Raw, e.DistilledBase, err
}

// Extracted is what ExtractAll takes out of its input.
type Extracted struct {
	// Raw is a copy of the raw BTF.
	Raw []byte
	// DistilledBase is a copy of an ELF file's .BTF.base section, nil
	// without one.
	DistilledBase []byte
	// PointerSize is the pointer size of an ELF file's class, 4 or 8; 0
	// for raw BTF. Given to Parse as Options.PointerSize, it makes the
	// Spec's pointer size the one that Open of the ELF file gives (as
	// libbpf's btf_parse_elf sets it), not the one "long" suggests.
	PointerSize uint32
}

// ExtractAll is Extract, which it also keeps the ELF class's pointer
// size for.
func ExtractAll(ctx context.Context, data []byte, opts Options) (Extracted, error) {
	o := Options{MaxSize: opts.MaxSize}
	d, distBase, ptrSize, err := o.rawAny(ctx, input.Borrow(data))
	if err != nil {
		return Extracted{}, err
	}
	defer d.Release()
	if err := checkBTF(d.Bytes()); err != nil {
		return Extracted{}, err
	}
	return Extracted{Raw: bytes.Clone(d.Bytes()), DistilledBase: distBase, PointerSize: ptrSize}, nil
}
