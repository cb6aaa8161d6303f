package input

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrELFNames is the error of CheckELFNames.
var ErrELFNames = errors.New("input: ELF names cost more than the file")

// Section header fields that CheckELFNames reads.
const (
	shtSymtab = 2
	shtDynsym = 11
	shnXindex = 0xffff
)

// elfHeaders is what CheckELFNames reads of an ELF file's header.
type elfHeaders struct {
	data     []byte
	order    binary.ByteOrder
	is64     bool
	shoff    uint64
	shentsz  uint64
	shnum    uint64
	shstrndx uint64
}

// CheckELFNames refuses an ELF file whose section names, or the names of
// the symbols of its symbol tables, would take more bytes than the file
// itself once copied. debug/elf copies each section's and each symbol's
// name into a string of its own, so that headers sharing one long name
// cost its length each: a million section headers naming one string of
// 8 KB, a 64 MB file, ask for 8 GB. Files that debug/elf will refuse
// (truncated headers, bad sizes) pass: its error names them better. The
// walk reads the headers in place and stops once the limit is passed, so
// it holds nothing and reads at most twice the file.
func CheckELFNames(data []byte) error {
	h, ok := readELFHeaders(data)
	if !ok {
		return nil
	}
	budget := int64(len(data))
	strtab, ok := h.section(h.shstrndx)
	if !ok {
		return nil
	}
	for i := range h.shnum {
		sec := h.header(i)
		budget -= h.nameLen(strtab, uint64(h.order.Uint32(sec)))
		if budget < 0 {
			return fmt.Errorf("%w: %d section headers whose names would take more than the file's %d bytes", ErrELFNames, h.shnum, len(data))
		}
		typ := h.order.Uint32(sec[4:])
		if typ != shtSymtab && typ != shtDynsym {
			continue
		}
		if budget = h.symbolNames(sec, budget); budget < 0 {
			return fmt.Errorf("%w: section %d's symbols' names would take more than the file's %d bytes", ErrELFNames, i, len(data))
		}
	}
	return nil
}

// readELFHeaders reads the ELF header of data, and the section count and
// string table index where section 0 holds them; ok is false when data
// is not an ELF file whose section headers lie inside it.
func readELFHeaders(data []byte) (elfHeaders, bool) {
	h := elfHeaders{data: data}
	if len(data) < 64 || string(data[:4]) != "\x7fELF" {
		return h, false
	}
	h.is64 = data[4] == 2
	switch data[5] {
	case 1:
		h.order = binary.LittleEndian
	case 2:
		h.order = binary.BigEndian
	default:
		return h, false
	}
	o := h.order
	if h.is64 {
		h.shoff, h.shentsz = o.Uint64(data[40:]), uint64(o.Uint16(data[58:]))
		h.shnum, h.shstrndx = uint64(o.Uint16(data[60:])), uint64(o.Uint16(data[62:]))
	} else {
		h.shoff, h.shentsz = uint64(o.Uint32(data[32:])), uint64(o.Uint16(data[46:]))
		h.shnum, h.shstrndx = uint64(o.Uint16(data[48:])), uint64(o.Uint16(data[50:]))
	}
	want := uint64(40)
	if h.is64 {
		want = 64
	}
	if h.shentsz < want || h.shoff == 0 || h.shoff >= uint64(len(data)) || uint64(len(data))-h.shoff < h.shentsz {
		return h, false
	}
	zero := h.header(0)
	if h.shnum == 0 {
		h.shnum = h.field(zero, 32, 20)
	}
	if h.shstrndx == shnXindex {
		h.shstrndx = uint64(h.order.Uint32(zero[h.pick(40, 24):]))
	}
	if h.shnum > (uint64(len(data))-h.shoff)/h.shentsz {
		return h, false
	}
	return h, true
}

// pick returns off64 in a 64-bit file, else off32.
func (h *elfHeaders) pick(off64, off32 int) int {
	if h.is64 {
		return off64
	}
	return off32
}

// field reads the size-sized field (8 bytes in a 64-bit file, else 4) at
// off64 or off32 of the header sec.
func (h *elfHeaders) field(sec []byte, off64, off32 int) uint64 {
	if h.is64 {
		return h.order.Uint64(sec[off64:])
	}
	return uint64(h.order.Uint32(sec[off32:]))
}

// header returns section i's header (i < shnum, checked by the caller).
func (h *elfHeaders) header(i uint64) []byte {
	at := h.shoff + i*h.shentsz
	return h.data[at : at+h.shentsz]
}

// section returns the bytes of section i, if they lie inside the file.
func (h *elfHeaders) section(i uint64) ([]byte, bool) {
	if i >= h.shnum {
		return nil, false
	}
	return h.bytesOf(h.header(i))
}

// bytesOf returns the bytes of the section whose header is sec, if they
// lie inside the file.
func (h *elfHeaders) bytesOf(sec []byte) ([]byte, bool) {
	off, size := h.field(sec, 24, 16), h.field(sec, 32, 20)
	if off > uint64(len(h.data)) || size > uint64(len(h.data))-off {
		return nil, false
	}
	return h.data[off : off+size], true
}

// nameLen is the length of the string at off of strtab: what debug/elf
// copies for a name (nothing for an offset outside it).
func (h *elfHeaders) nameLen(strtab []byte, off uint64) int64 {
	if off >= uint64(len(strtab)) {
		return 0
	}
	for i, c := range strtab[off:] {
		if c == 0 {
			return int64(i)
		}
	}
	return int64(len(strtab)) - int64(off)
}

// symbolNames returns budget less the lengths of the names of the
// symbols of the symbol table whose header is sec, stopping below 0.
func (h *elfHeaders) symbolNames(sec []byte, budget int64) int64 {
	syms, ok := h.bytesOf(sec)
	if !ok {
		return budget
	}
	strtab, ok := h.section(uint64(h.order.Uint32(sec[h.pick(40, 24):])))
	if !ok {
		return budget
	}
	size := h.pick(24, 16)
	for at := 0; at+size <= len(syms) && budget >= 0; at += size {
		budget -= h.nameLen(strtab, uint64(h.order.Uint32(syms[at:])))
	}
	return budget
}
