// Package elfscan finds the sections of an ELF file by reading its section
// header table in place: it allocates nothing per section, whatever the
// section count, and bounds-checks every offset and size it reads.
//
// debug/elf's NewFile allocates a Section and a copy of its name for every
// section header; a file whose many headers share one long name makes that
// quadratic in the file's size. Readers that need only a few sections
// (.BTF, .BTF.base) use Lookup; readers that need debug/elf's File call
// CheckNames first, which keeps debug/elf's allocation linear in the file.
package elfscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// ELF constants used here (elf(5)).
const (
	shtSymtab    = 2
	shtStrtab    = 3
	shtNobits    = 8
	shtDynsym    = 11
	shfCompress  = 0x800
	shnLoreserve = 0xff00
	shnXindex    = 0xffff
)

// FormatError describes what is wrong with an ELF file, and where.
type FormatError struct {
	Offset int64  // byte offset in the file of the header at fault
	Msg    string // what is wrong
	Err    error  // a sentinel it matches (ErrNames), or nil
}

// Unwrap returns the sentinel the error matches, or nil.
func (e *FormatError) Unwrap() error { return e.Err }

// Error returns the message and the offset.
func (e *FormatError) Error() string {
	return fmt.Sprintf("%s (at byte %d)", e.Msg, e.Offset)
}

func errorf(off uint64, format string, args ...any) error {
	return &FormatError{Offset: int64(min(off, 1<<63-1)), Msg: fmt.Sprintf(format, args...)}
}

// File is an ELF file's header and section header table, viewed in place.
type File struct {
	data      []byte
	Is64      bool             // ELFCLASS64; ELFCLASS32 otherwise
	ByteOrder binary.ByteOrder // the file's byte order
	Type      uint16           // e_type
	Machine   uint16           // e_machine
	shoff     uint64
	shentsize uint64
	count     int
	shstrndx  int
	names     []byte // the section name string table; nil without one
	lastNUL   int    // index of names' last NUL byte, -1 if none
}

// Section is one section header.
type Section struct {
	Index     int    // its index in the table
	NameOff   uint32 // sh_name: the offset of its name in the section name table
	Type      uint32 // sh_type
	Flags     uint64 // sh_flags
	Addr      uint64 // sh_addr
	Offset    uint64 // sh_offset
	Size      uint64 // sh_size
	Link      uint32 // sh_link
	Info      uint32 // sh_info
	Addralign uint64 // sh_addralign
	Entsize   uint64 // sh_entsize
}

// Compressed reports whether the section is flagged SHF_COMPRESSED.
func (s Section) Compressed() bool { return s.Flags&shfCompress != 0 }

// NoBits reports whether the section is SHT_NOBITS: it has no data in the file.
func (s Section) NoBits() bool { return s.Type == shtNobits }

// Parse checks the ELF header of data and its section header table:
// identification, the table's place in the file (with the extended count
// and name table index of section 0), the section name table, and every
// section's name offset, offset and size as debug/elf's NewFile checks them.
// It copies nothing: the File refers to data.
func Parse(data []byte) (*File, error) {
	f, err := parseIdent(data)
	if err != nil {
		return nil, err
	}
	if err := f.parseHeader(); err != nil {
		return nil, err
	}
	if err := f.loadNames(); err != nil {
		return nil, err
	}
	for i := range f.count {
		s := f.Section(i)
		if int64(s.Offset) < 0 {
			return nil, errorf(f.headerOff(i), "invalid section offset %d", int64(s.Offset))
		}
		if int64(s.Size) < 0 {
			return nil, errorf(f.headerOff(i), "invalid section size %d", int64(s.Size))
		}
		if f.names != nil && int(s.NameOff) > f.lastNUL {
			return nil, errorf(f.headerOff(i), "bad section name index %d", s.NameOff)
		}
	}
	return f, nil
}

func parseIdent(data []byte) (*File, error) {
	if len(data) < 16 || string(data[:4]) != "\x7fELF" {
		return nil, errorf(0, "bad magic number")
	}
	f := &File{data: data, lastNUL: -1}
	switch data[4] {
	case 1:
	case 2:
		f.Is64 = true
	default:
		return nil, errorf(4, "unknown ELF class %d", data[4])
	}
	switch data[5] {
	case 1:
		f.ByteOrder = binary.LittleEndian
	case 2:
		f.ByteOrder = binary.BigEndian
	default:
		return nil, errorf(5, "unknown ELF data encoding %d", data[5])
	}
	if data[6] != 1 {
		return nil, errorf(6, "unknown ELF version %d", data[6])
	}
	return f, nil
}

// parseHeader reads the file header's section table fields and checks
// that the table lies in the file.
func (f *File) parseHeader() error {
	ehsize, want := 52, uint64(40)
	if f.Is64 {
		ehsize, want = 64, 64
	}
	if len(f.data) < ehsize {
		return errorf(0, "ELF header of %d bytes, truncated", len(f.data))
	}
	o, d := f.ByteOrder, f.data
	f.Type, f.Machine = o.Uint16(d[16:]), o.Uint16(d[18:])
	if v := o.Uint32(d[20:]); v != 1 {
		return errorf(20, "mismatched ELF version %d", v)
	}
	if f.Is64 {
		f.shoff = o.Uint64(d[40:])
	} else {
		f.shoff = uint64(o.Uint32(d[32:]))
	}
	f.shentsize = uint64(o.Uint16(d[ehsize-6:]))
	shnum, shstrndx := uint64(o.Uint16(d[ehsize-4:])), int(o.Uint16(d[ehsize-2:]))
	if int64(f.shoff) < 0 {
		return errorf(0, "invalid shoff %d", int64(f.shoff))
	}
	if f.shoff == 0 {
		if shnum != 0 {
			return errorf(0, "invalid ELF shnum %d for shoff=0", shnum)
		}
		return nil
	}
	if f.shentsize < want {
		return errorf(0, "invalid ELF shentsize %d", f.shentsize)
	}
	if f.shoff > uint64(len(d)) || uint64(len(d))-f.shoff < want {
		return errorf(0, "section header table at %d lies outside the file", f.shoff)
	}
	if shnum == 0 {
		// e_shnum escapes to section 0's sh_size, e_shstrndx to its sh_link.
		s0 := f.header(0)
		if s0.Type != 0 {
			return errorf(f.shoff, "invalid type %d of the initial section", s0.Type)
		}
		if shnum = s0.Size; shnum < shnLoreserve {
			return errorf(f.shoff, "invalid ELF shnum %d contained in sh_size", shnum)
		}
		if shstrndx == shnXindex {
			if shstrndx = int(s0.Link); shstrndx < shnLoreserve {
				return errorf(f.shoff, "invalid ELF shstrndx %d contained in sh_link", shstrndx)
			}
		}
	}
	if shnum > (uint64(len(d))-f.shoff)/f.shentsize {
		return errorf(0, "%d section headers of %d bytes at %d do not fit in the file", shnum, f.shentsize, f.shoff)
	}
	if uint64(shstrndx) >= shnum {
		return errorf(0, "invalid ELF shstrndx %d", shstrndx)
	}
	f.count, f.shstrndx = int(shnum), shstrndx
	return nil
}

// loadNames finds the section name string table.
func (f *File) loadNames() error {
	if f.count == 0 || f.shstrndx == 0 {
		return nil
	}
	s := f.Section(f.shstrndx)
	off := f.headerOff(f.shstrndx)
	if s.Type != shtStrtab {
		return errorf(off, "invalid ELF section name string table type %d", s.Type)
	}
	if s.Compressed() {
		return errorf(off, "compressed section name string table")
	}
	names, err := f.Data(s)
	if err != nil {
		return err
	}
	f.names, f.lastNUL = names, bytes.LastIndexByte(names, 0)
	if f.names == nil {
		f.names = []byte{}
	}
	return nil
}

// NumSections returns the number of sections, the null section 0 included.
func (f *File) NumSections() int { return f.count }

func (f *File) headerOff(i int) uint64 { return f.shoff + uint64(i)*f.shentsize }

// Section returns section i's header; i must be below NumSections.
func (f *File) Section(i int) Section {
	s := f.header(i)
	s.Index = i
	return s
}

func (f *File) header(i int) Section {
	b, o := f.data[f.headerOff(i):], f.ByteOrder
	if f.Is64 {
		return Section{NameOff: o.Uint32(b), Type: o.Uint32(b[4:]), Flags: o.Uint64(b[8:]),
			Addr: o.Uint64(b[16:]), Offset: o.Uint64(b[24:]), Size: o.Uint64(b[32:]), Link: o.Uint32(b[40:]),
			Info: o.Uint32(b[44:]), Addralign: o.Uint64(b[48:]), Entsize: o.Uint64(b[56:])}
	}
	return Section{NameOff: o.Uint32(b), Type: o.Uint32(b[4:]), Flags: uint64(o.Uint32(b[8:])),
		Addr: uint64(o.Uint32(b[12:])), Offset: uint64(o.Uint32(b[16:])), Size: uint64(o.Uint32(b[20:])),
		Link: o.Uint32(b[24:]), Info: o.Uint32(b[28:]), Addralign: uint64(o.Uint32(b[32:])),
		Entsize: uint64(o.Uint32(b[36:]))}
}

// Named reports whether s's name is name, comparing in place.
func (f *File) Named(s Section, name string) bool {
	if f.names == nil {
		return name == ""
	}
	rest := f.names[s.NameOff:] // Parse checked NameOff <= lastNUL
	return len(rest) > len(name) && rest[len(name)] == 0 && string(rest[:len(name)]) == name
}

// Lookup returns the first section named name, as debug/elf's
// File.Section does, and whether there is one.
func (f *File) Lookup(name string) (Section, bool) {
	for i := range f.count {
		if s := f.Section(i); f.Named(s, name) {
			return s, true
		}
	}
	return Section{}, false
}

// Data returns the bytes of section s in the file (empty for SHT_NOBITS),
// or an error if they lie outside it.
func (f *File) Data(s Section) ([]byte, error) {
	if s.NoBits() {
		return nil, nil
	}
	end := s.Offset + s.Size
	if end < s.Offset || end > uint64(len(f.data)) {
		return nil, errorf(f.headerOff(s.Index), "section %d (offset %d, %d bytes) lies outside the file", s.Index, s.Offset, s.Size)
	}
	return f.data[s.Offset:end:end], nil
}

// ErrNames matches (errors.Is) Check's error for a file whose names
// would cost debug/elf more than the file's size.
var ErrNames = errors.New("ELF names cost more than the file")

// Check parses the ELF file in data and refuses it, with an error that
// matches ErrNames and says which section, when the names debug/elf's
// NewFile and Symbols copy, one string for each section header and each
// symbol of a SHT_SYMTAB or SHT_DYNSYM table, total more than the file's
// size. Under that bound debug/elf's allocation stays linear in the file;
// real files pass it with a wide margin, their names being mostly
// distinct strings that the file holds. Readers that need debug/elf's File
// call Check first. It reads no name past the budget left, so it takes
// time linear in the file, and allocates nothing per section.
func Check(data []byte) error {
	f, err := Parse(data)
	if err != nil {
		return err
	}
	budget, ok := uint64(len(data)), true
	for i := range f.count {
		s := f.Section(i)
		if f.names != nil {
			if budget, ok = spend(f.names[s.NameOff:], budget); !ok {
				return f.namesError(i, "the sections' names")
			}
		}
		if s.Type == shtSymtab || s.Type == shtDynsym {
			if budget, ok = f.symbolNames(s, budget); !ok {
				return f.namesError(i, "the names of its symbols and the sections'")
			}
		}
	}
	return nil
}

func (f *File) namesError(i int, what string) error {
	return &FormatError{Offset: int64(f.headerOff(i)), Err: ErrNames,
		Msg: fmt.Sprintf("section %d: %s total more than the file's %d bytes (many share one long name)", i, what, len(f.data))}
}

// spend returns budget less the length of the NUL-terminated string at
// the start of b (nothing if b holds no NUL), reading at most budget+1
// bytes; ok is false if the string is longer than budget.
func spend(b []byte, budget uint64) (uint64, bool) {
	n := bytes.IndexByte(b[:min(uint64(len(b)), budget+1)], 0)
	if n < 0 {
		if uint64(len(b)) <= budget {
			return budget - uint64(len(b)), true
		}
		return 0, false
	}
	return budget - uint64(n), true
}

// symbolNames returns budget less the lengths of the names of the symbols
// of the symbol table s; ok is false once they pass it. A table or string
// table outside the file costs nothing here: debug/elf refuses it.
func (f *File) symbolNames(s Section, budget uint64) (uint64, bool) {
	syms, err := f.Data(s)
	if err != nil || uint64(s.Link) >= uint64(f.count) {
		return budget, true
	}
	strs, err := f.Data(f.Section(int(s.Link)))
	if err != nil {
		return budget, true
	}
	size := 16
	if f.Is64 {
		size = 24
	}
	ok := true
	for at := 0; at+size <= len(syms) && ok; at += size {
		if off := uint64(f.ByteOrder.Uint32(syms[at:])); off < uint64(len(strs)) {
			budget, ok = spend(strs[off:], budget)
		}
	}
	return budget, ok
}
