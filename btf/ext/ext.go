package ext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"
	"math/bits"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Magic is the first two bytes of .BTF.ext (and of .BTF), in the data's
// byte order.
const Magic = wire.Magic

// Header sizes: the first version had func_info and line_info only; CO-RE
// relocations came with the 32-byte header.
const (
	minHeaderLen  = 24
	coreHeaderLen = 32
)

// Part is one of the three kinds of records .BTF.ext holds.
//
// Its values are FuncInfos, LineInfos and CORERelos.
type Part uint8

// The parts of .BTF.ext, in the order of the header.
const (
	FuncInfos Part = iota // func_info
	LineInfos             // line_info
	CORERelos             // core_relo
	numParts
)

// String returns libbpf's name of the part: "func_info", "line_info",
// "core_relo".
func (p Part) String() string {
	switch p {
	case FuncInfos:
		return "func_info"
	case LineInfos:
		return "line_info"
	case CORERelos:
		return "core_relo"
	}
	return fmt.Sprintf("Part(%d)", uint8(p))
}

// minRecSize is the size of the records the kernel and libbpf know; a
// record may be longer (a newer producer), never shorter.
var minRecSize = [numParts]int{FuncInfos: 8, LineInfos: 16, CORERelos: 16}

// Ext is a parsed .BTF.ext section. Its records are read in place from the
// data given to Parse (or from a host-order copy of it).
type Ext struct {
	hdrLen  int
	parts   [numParts][]Section
	recSize [numParts]int
	swapped bool
}

// Section is the run of records of one part that describe one ELF section
// (a program section such as "kprobe/do_unlinkat", or ".text").
type Section struct {
	// NameOff is the offset of the ELF section's name in the object's BTF
	// strings, and Name that name (empty when Parse had no Spec).
	NameOff uint32
	Name    string
	// Offset is where the section's records start, from the start of the
	// .BTF.ext data.
	Offset  int
	recs    []byte
	recSize int
}

// FuncInfo says that the function whose BTF FUNC is TypeID starts at
// instruction byte offset InsnOff of the section.
type FuncInfo struct {
	InsnOff uint32
	TypeID  btf.TypeID
}

// LineInfo maps instruction byte offset InsnOff to a source line: the file
// name and the line's text are string offsets in the object's BTF.
type LineInfo struct {
	InsnOff     uint32
	FileNameOff uint32
	LineOff     uint32
	Line        uint32 // line number (the upper 22 bits of line_col)
	Col         uint32 // column (the lower 10 bits)
}

// CORERelo is one CO-RE relocation: the instruction at byte offset
// InsnOff accesses something of local type TypeID, described by the
// access string at AccessStrOff ("0:1:2", or "0" for type-based kinds,
// or an enumerator's index).
type CORERelo struct {
	InsnOff      uint32
	TypeID       btf.TypeID
	AccessStrOff uint32
	Kind         Kind
}

// HeaderLen returns the length of the header: 24, 32, or more.
func (e *Ext) HeaderLen() int { return e.hdrLen }

// Swapped reports whether the data was in the byte order opposite to the
// host's (Parse then read a converted copy).
func (e *Ext) Swapped() bool { return e.swapped }

// Sections returns the sections of part p in the order of the data. The
// slice belongs to the Ext and must not be modified; it is nil for an
// absent or empty part.
func (e *Ext) Sections(p Part) []Section {
	if p >= numParts {
		return nil
	}
	return e.parts[p]
}

// RecordSize returns the size of one record of part p as the data states
// it; 0 for an absent part.
func (e *Ext) RecordSize(p Part) int {
	if p >= numParts {
		return 0
	}
	return e.recSize[p]
}

// Len returns the number of records of the section.
func (s Section) Len() int {
	if s.recSize == 0 {
		return 0
	}
	return len(s.recs) / s.recSize
}

// word returns 32-bit word w of record i; 0 outside the records, or
// beyond the record's size (a line_info field asked of func_info).
func (s Section) word(i, w int) uint32 {
	if i < 0 || i >= s.Len() || 4*w+4 > s.recSize {
		return 0
	}
	return binary.NativeEndian.Uint32(s.recs[i*s.recSize+4*w:])
}

// FuncInfo returns record i of a func_info section; the zero FuncInfo if i
// is out of range.
func (s Section) FuncInfo(i int) FuncInfo {
	return FuncInfo{InsnOff: s.word(i, 0), TypeID: btf.TypeID(s.word(i, 1))}
}

// LineInfo returns record i of a line_info section; the zero LineInfo if i
// is out of range.
func (s Section) LineInfo(i int) LineInfo {
	lc := s.word(i, 3)
	return LineInfo{InsnOff: s.word(i, 0), FileNameOff: s.word(i, 1), LineOff: s.word(i, 2), Line: lc >> 10, Col: lc & 0x3ff}
}

// CORERelo returns record i of a core_relo section; the zero CORERelo if i
// is out of range.
func (s Section) CORERelo(i int) CORERelo {
	return CORERelo{InsnOff: s.word(i, 0), TypeID: btf.TypeID(s.word(i, 1)), AccessStrOff: s.word(i, 2), Kind: Kind(s.word(i, 3))}
}

// CORERelos iterates over the records of a core_relo section with their
// index (libbpf's "relo #N").
func (s Section) CORERelos() iter.Seq2[int, CORERelo] {
	return func(yield func(int, CORERelo) bool) {
		for i := range s.Len() {
			if !yield(i, s.CORERelo(i)) {
				return
			}
		}
	}
}

// FuncInfos iterates over the records of a func_info section.
func (s Section) FuncInfos() iter.Seq2[int, FuncInfo] {
	return func(yield func(int, FuncInfo) bool) {
		for i := range s.Len() {
			if !yield(i, s.FuncInfo(i)) {
				return
			}
		}
	}
}

// LineInfos iterates over the records of a line_info section.
func (s Section) LineInfos() iter.Seq2[int, LineInfo] {
	return func(yield func(int, LineInfo) bool) {
		for i := range s.Len() {
			if !yield(i, s.LineInfo(i)) {
				return
			}
		}
	}
}

// String returns the string at offset off of the strings of s and its
// bases, without copying; ok is false when off lies outside them or the
// string has no terminating NUL.
func String(s *btf.Spec, off uint32) (_ []byte, ok bool) {
	for s != nil {
		data, start := s.StringSection()
		if off >= start {
			rel := uint64(off - start)
			if rel >= uint64(len(data)) {
				return nil, false
			}
			n := bytes.IndexByte(data[rel:], 0)
			if n < 0 {
				return nil, false
			}
			return data[rel : rel+uint64(n)], true
		}
		s = s.Base()
	}
	return nil, false
}

// swap32 reverses the byte order of every whole 4-byte word of b.
func swap32(b []byte) {
	for i := 0; i+4 <= len(b); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], bits.ReverseBytes32(binary.NativeEndian.Uint32(b[i:])))
	}
}
