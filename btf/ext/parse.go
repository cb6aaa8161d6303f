package ext

import (
	"encoding/binary"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
)

// FormatError describes malformed .BTF.ext: the part ("header",
// "func_info", "line_info", "core_relo"), the byte offset from the start
// of the data, and what is wrong.
type FormatError struct {
	Part   string
	Offset int64 // -1 if unknown
	Msg    string
}

// Error describes the problem.
func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("ext: %s: %s", e.Part, e.Msg)
	}
	return fmt.Sprintf("ext: %s at offset %d: %s", e.Part, e.Offset, e.Msg)
}

func formatErr(part string, off int, format string, args ...any) error {
	return &FormatError{Part: part, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// Parse reads .BTF.ext data. The records are read in place from data,
// which the caller keeps unchanged while the Ext is used, unless data is
// in the foreign byte order: then a converted copy is made.
//
// local is the object's BTF (its .BTF section); when it is not nil, every
// section name, file name, line and access string offset must be a string
// of it and every type id one of its types, and section names are
// resolved. A nil local checks the layout only.
//
// The checks are libbpf's btf_ext__new's: magic, version 1, no flags, a
// header of at least 24 bytes (CO-RE records need 32), parts inside the
// data and 4-byte aligned, a record size that is a multiple of 4 and at
// least the standard one (exactly it for foreign byte order), and at least
// one record in every section. An error is a *FormatError.
func Parse(data []byte, local *btf.Spec) (*Ext, error) {
	if len(data) < 8 {
		return nil, formatErr("header", 0, "%d bytes: too short for a header", len(data))
	}
	var bo binary.ByteOrder = binary.NativeEndian
	e := &Ext{}
	switch {
	case bo.Uint16(data) == Magic:
	case swappedOrder(bo).Uint16(data) == Magic:
		bo = swappedOrder(bo)
		e.swapped = true
	default:
		return nil, formatErr("header", 0, "bad magic %#04x", binary.LittleEndian.Uint16(data))
	}
	if v := data[2]; v != 1 {
		return nil, formatErr("header", 2, "unsupported version %d", v)
	}
	if f := data[3]; f != 0 {
		return nil, formatErr("header", 3, "unsupported flags %#x", f)
	}
	hdrLen := uint64(bo.Uint32(data[4:]))
	switch {
	case hdrLen > uint64(len(data)):
		return nil, formatErr("header", 4, "header length %d beyond the %d bytes of data", hdrLen, len(data))
	case hdrLen == uint64(len(data)):
		return nil, formatErr("header", 4, "no data after the %d-byte header", hdrLen)
	case hdrLen < minHeaderLen:
		return nil, formatErr("header", 4, "header length %d: func_info and line_info missing", hdrLen)
	}
	e.hdrLen = int(hdrLen)
	if e.swapped {
		data = swapCopy(data, bo, e.hdrLen)
	}
	for p := FuncInfos; p < numParts; p++ {
		hoff := 8 + 8*int(p)
		if hoff+8 > e.hdrLen {
			break // a 24-byte header has no core_relo fields
		}
		off := binary.NativeEndian.Uint32(data[hoff:])
		n := binary.NativeEndian.Uint32(data[hoff+4:])
		if err := e.parsePart(data, p, off, n, local); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func swappedOrder(bo binary.ByteOrder) binary.ByteOrder {
	if bo.Uint16([]byte{1, 0}) == 1 {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// swapCopy returns data in host order: the header's words converted, and
// every part's 4-byte words, which is all they hold when the record sizes
// are the standard ones (checked later).
func swapCopy(data []byte, bo binary.ByteOrder, hdrLen int) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	binary.NativeEndian.PutUint16(out, Magic)
	swap32(out[4:hdrLen])
	for p := FuncInfos; p < numParts; p++ {
		hoff := 8 + 8*int(p)
		if hoff+8 > hdrLen {
			break
		}
		off := uint64(hdrLen) + uint64(bo.Uint32(data[hoff:]))
		end := off + uint64(bo.Uint32(data[hoff+4:]))
		if off%4 != 0 || end > uint64(len(out)) {
			continue // parsePart reports it
		}
		swap32(out[off:end])
	}
	return out
}

// parsePart checks part p, n bytes at off past the header, and records its
// sections.
func (e *Ext) parsePart(data []byte, p Part, off, n uint32, local *btf.Spec) error {
	name := p.String()
	if n == 0 {
		return nil
	}
	start := uint64(e.hdrLen) + uint64(off)
	switch {
	case off%4 != 0:
		return formatErr(name, int(start), "part not aligned to 4 bytes")
	case start+uint64(n) > uint64(len(data)):
		return formatErr(name, -1, "part (offset %d, %d bytes) beyond the end of the data", off, n)
	case n < 4:
		return formatErr(name, int(start), "no record size")
	}
	b := data[start : start+uint64(n)]
	rs := binary.NativeEndian.Uint32(b)
	if rs < uint32(minRecSize[p]) || rs%4 != 0 || rs > n || (e.swapped && rs != uint32(minRecSize[p])) {
		return formatErr(name, int(start), "invalid record size %d", rs)
	}
	if n == 4 {
		return formatErr(name, int(start), "no records")
	}
	e.recSize[p] = int(rs)
	for pos := 4; pos < len(b); {
		at := int(start) + pos
		if len(b)-pos < 8 {
			return formatErr(name, at, "truncated section header")
		}
		nameOff := binary.NativeEndian.Uint32(b[pos:])
		num := binary.NativeEndian.Uint32(b[pos+4:])
		if num == 0 {
			return formatErr(name, at, "section with no records")
		}
		size := uint64(num) * uint64(rs)
		if size > uint64(len(b)-pos-8) {
			return formatErr(name, at, "%d records of %d bytes beyond the end of the part", num, rs)
		}
		s := Section{NameOff: nameOff, Offset: at + 8, recs: b[pos+8 : pos+8+int(size)], recSize: int(rs)}
		if local != nil {
			if err := s.check(p, local); err != nil {
				return err
			}
		}
		e.parts[p] = append(e.parts[p], s)
		pos += 8 + int(size)
	}
	return nil
}

// check resolves the section's name and checks its records' string
// offsets and type ids against the object's BTF.
func (s *Section) check(p Part, local *btf.Spec) error {
	name, ok := String(local, s.NameOff)
	if !ok || len(name) == 0 {
		return formatErr(p.String(), s.Offset-8, "bad section name offset %d", s.NameOff)
	}
	s.Name = string(name)
	last := local.LastID()
	limit := stringLimit(local)
	// The fields are read straight from the records (Parse checked
	// that each holds at least minRecSize[p] bytes): through LineInfo
	// and CORERelo, millions of records cost four times as much
	// (BENCH.md).
	ne := binary.NativeEndian
	for i := range s.Len() {
		at := s.Offset + i*s.recSize
		r := s.recs[i*s.recSize:]
		var id btf.TypeID
		var strs [2]uint32
		nstr := 0
		switch p {
		case FuncInfos:
			id = btf.TypeID(ne.Uint32(r[4:]))
		case LineInfos:
			strs, nstr = [2]uint32{ne.Uint32(r[4:]), ne.Uint32(r[8:])}, 2
		case CORERelos:
			id, strs, nstr = btf.TypeID(ne.Uint32(r[4:])), [2]uint32{ne.Uint32(r[8:])}, 1
		}
		if id > last {
			return formatErr(p.String(), at, "%s %s record %d: type id %d beyond the last type %d", s.Name, p, i, id, last)
		}
		for _, off := range strs[:nstr] {
			if off >= limit {
				return formatErr(p.String(), at, "%s %s record %d: bad string offset %d", s.Name, p, i, off)
			}
		}
	}
	return nil
}

// stringLimit returns the end of the strings of s and its bases: String
// finds a string at every offset below it, as a string section ends with
// a NUL (btf.Parse refuses one that does not) and a split Spec's strings
// follow its base's. Checking an offset against it does not look for the
// string's end: on millions of line_info records (two strings each),
// String's scan for the NUL took most of the parse.
func stringLimit(s *btf.Spec) uint32 {
	for ; s != nil; s = s.Base() {
		data, start := s.StringSection()
		if len(data) > 0 && data[len(data)-1] == 0 {
			return start + uint32(len(data))
		}
	}
	return 0
}
