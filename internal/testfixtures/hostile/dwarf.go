package hostile

import (
	"bytes"
	"encoding/binary"
)

// DWARFShape names hand-made DWARF for btf encode and kmeta pahole -J,
// which BuildDWARF wraps in an x86-64 ELF relocatable file: shapes no
// compiler writes, each with the one base type "int".
type DWARFShape int

// The DWARF shapes.
const (
	DeepDIEs     DWARFShape = iota // N structs "s" of 4 bytes, each defined inside the one before, each with a member "m" of int: DIEs nested N deep
	ManyCUs                        // N compile units, each an int and a struct "s" of 4 bytes
	RefAddrCycle                   // N compile units, each a typedef "t" of the next unit's typedef by DW_FORM_ref_addr (the last of the first's) and a variable of it
	HugeBitfield                   // a struct "s" of 4 bytes whose member "m", of int, starts at bit 3 (DW_AT_data_bit_offset) with a DW_AT_bit_size (DW_FORM_data8) of 2^N, N < 64
	numDWARFShapes
)

// DWARFShapes lists every DWARF shape.
func DWARFShapes() []DWARFShape { return upTo(numDWARFShapes) }

// String names the shape in lower case with dashes, as in "deep-dies".
func (k DWARFShape) String() string {
	return [...]string{"deep-dies", "many-cus", "ref-addr-cycle", "huge-bitfield"}[k]
}

// The abbreviation codes of dwarfAbbrev, and the DWARF constants they use.
const (
	abCU, abInt, abStruct, abMember, abLeaf, abTypedef, abVar, abBitMember = 1, 2, 3, 4, 5, 6, 7, 8

	formString, formData1, formData2, formData8, formRef4, formRefAddr = 0x08, 0x0b, 0x05, 0x07, 0x13, 0x10
	langC99                                                            = 0x0c
)

// appendAbbrev appends to b the abbreviation code for DIEs of tag, with
// or without children, whose attributes are the (name, form) pairs attrs.
func appendAbbrev(b []byte, code, tag byte, children bool, attrs ...byte) []byte {
	c := byte(0)
	if children {
		c = 1
	}
	b = append(append(b, code, tag, c), attrs...)
	return append(b, 0, 0)
}

// dwarfAbbrev is the .debug_abbrev section every shape shares.
func dwarfAbbrev() []byte {
	var b []byte
	add := func(code, tag byte, children bool, attrs ...byte) { b = appendAbbrev(b, code, tag, children, attrs...) }
	add(abCU, 0x11, true, 0x03, formString, 0x13, formData2)
	add(abInt, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
	add(abStruct, 0x13, true, 0x03, formString, 0x0b, formData1)
	add(abMember, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x38, formData1)
	add(abLeaf, 0x13, false, 0x03, formString, 0x0b, formData1)
	add(abTypedef, 0x16, false, 0x03, formString, 0x49, formRefAddr)
	add(abVar, 0x34, false, 0x03, formString, 0x49, formRef4)
	add(abBitMember, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x6b, formData1, 0x0d, formData8)
	return append(b, 0)
}

// Offsets within every unit dwarfUnit writes: the 11-byte header, the
// unit's DIE (7 bytes), the int (7 bytes), then the shape's DIEs.
const (
	unitIntOff   = 18
	unitFirstOff = 25
)

// dwarfUnit appends a DWARF 4 compile unit (32-bit format, 8-byte
// addresses) holding an int and the DIEs body appends, and its end.
func dwarfUnit(dst []byte, body func(b []byte) []byte) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8)
	dst = append(dst, abCU, 'c', '.', 'c', 0, langC99, 0)
	dst = append(dst, abInt, 'i', 'n', 't', 0, 5, 4)
	dst = append(body(dst), 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

func ref4(b []byte, off uint32) []byte { return binary.LittleEndian.AppendUint32(b, off) }

// BuildDWARF returns the shape k with n as its size parameter.
func BuildDWARF(k DWARFShape, n int) []byte {
	var info []byte
	switch k {
	case DeepDIEs:
		info = dwarfUnit(nil, func(b []byte) []byte {
			for range n {
				b = append(b, abStruct, 's', 0, 4)
				b = append(ref4(append(b, abMember, 'm', 0), unitIntOff), 0)
			}
			return append(b, make([]byte, n)...)
		})
	case ManyCUs:
		for range n {
			info = dwarfUnit(info, func(b []byte) []byte { return append(b, abLeaf, 's', 0, 4) })
		}
	case HugeBitfield:
		info = dwarfUnit(nil, func(b []byte) []byte {
			b = append(b, abStruct, 's', 0, 4)
			b = append(ref4(append(b, abBitMember, 'm', 0), unitIntOff), 3)
			return append(binary.LittleEndian.AppendUint64(b, 1<<uint(n)), 0)
		})
	case RefAddrCycle:
		const unitLen = unitFirstOff + 7 + 7 + 1
		for i := range n {
			next := uint32((i+1)%n*unitLen + unitFirstOff)
			info = dwarfUnit(info, func(b []byte) []byte {
				b = ref4(append(b, abTypedef, 't', 0), next)
				return ref4(append(b, abVar, 'v', 0), unitFirstOff)
			})
		}
	}
	return debugELF(dwarfAbbrev(), info)
}

// debugELF returns a little-endian ELF64 x86-64 relocatable file of the
// two sections .debug_abbrev and .debug_info.
func debugELF(abbrev, info []byte) []byte {
	const shstr = "\x00.debug_abbrev\x00.debug_info\x00.shstrtab\x00"
	var out bytes.Buffer
	out.Write(make([]byte, 64))
	offs := []int{out.Len()}
	out.Write(abbrev)
	offs = append(offs, out.Len())
	out.Write(info)
	offs = append(offs, out.Len())
	out.WriteString(shstr)
	for out.Len()%8 != 0 {
		out.WriteByte(0)
	}
	shoff := out.Len()
	le := binary.LittleEndian
	out.Write(make([]byte, 64))
	for i, s := range []struct {
		name, typ uint32
		size      int
	}{{1, 1, len(abbrev)}, {15, 1, len(info)}, {27, 3, len(shstr)}} {
		var h [64]byte
		le.PutUint32(h[0:], s.name)
		le.PutUint32(h[4:], s.typ)
		le.PutUint64(h[24:], uint64(offs[i]))
		le.PutUint64(h[32:], uint64(s.size))
		le.PutUint64(h[48:], 1)
		out.Write(h[:])
	}
	data := out.Bytes()
	putELFHeader(data, 62, shoff) // EM_X86_64
	le.PutUint16(data[60:], 4)
	le.PutUint16(data[62:], 3)
	return data
}
