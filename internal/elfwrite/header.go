package elfwrite

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/elfscan"
)

// header is what replace needs of an ELF file: its class, byte order,
// ELF header fields and section headers, read as they are in the file.
type header struct {
	file  *elfscan.File
	is64  bool
	order binary.ByteOrder
	size  int64 // of the file

	ehdr     []byte // the ELF header as in the file
	typ      elf.Type
	machine  elf.Machine
	phoff    uint64
	phnum    int
	phent    int
	shstrndx int

	sections []section
}

// section is one section header, in the file's words.
type section struct {
	name      uint32
	typ       elf.SectionType
	flags     uint64
	addr      uint64
	offset    uint64
	size      uint64
	link      uint32
	info      uint32
	addralign uint64
	entsize   uint64
}

// readHeader reads and checks the ELF header and the section headers of
// the file data through elfscan, the one reader of section header tables,
// and adds the checks that laying the file out again needs: standard
// header sizes, a section name table, sections within the file and
// alignments that are powers of two.
func readHeader(data []byte) (*header, error) {
	f, err := elfscan.Parse(data)
	if err != nil {
		return nil, err
	}
	h := &header{file: f, is64: f.Is64, order: f.ByteOrder, size: int64(len(data))}
	h.ehdr = bytes.Clone(data[:h.ehdrSize()]) // Parse checked that it is there
	h.parseEhdr()
	if f.NumSections() == 0 {
		return nil, fmt.Errorf("ELF header: no section header table")
	}
	if _, _, hs := h.ehdrField(); int(h.order.Uint16(h.ehdr[hs+6:])) != h.shdrSize() {
		return nil, fmt.Errorf("ELF header: section header size %d, want %d", h.order.Uint16(h.ehdr[hs+6:]), h.shdrSize())
	}
	if h.shstrndx == int(elf.SHN_XINDEX) {
		h.shstrndx = int(f.Section(0).Link)
	}
	if h.shstrndx <= 0 || h.shstrndx >= f.NumSections() {
		return nil, fmt.Errorf("ELF header: section name table %d out of range", h.shstrndx)
	}
	h.sections = make([]section, f.NumSections())
	for i := range h.sections {
		s := fromScan(f.Section(i))
		if s.typ != elf.SHT_NOBITS && i > 0 && (s.offset > uint64(h.size) || s.size > uint64(h.size)-s.offset) {
			return nil, fmt.Errorf("section %d: offset %#x size %#x beyond the file's end", i, s.offset, s.size)
		}
		if s.addralign&(s.addralign-1) != 0 {
			return nil, fmt.Errorf("section %d: alignment %d is not a power of two", i, s.addralign)
		}
		h.sections[i] = s
	}
	return h, nil
}

// fromScan returns elfscan's section header in elfwrite's form.
func fromScan(s elfscan.Section) section {
	return section{name: s.NameOff, typ: elf.SectionType(s.Type), flags: s.Flags, addr: s.Addr,
		offset: s.Offset, size: s.Size, link: s.Link, info: s.Info, addralign: s.Addralign, entsize: s.Entsize}
}

func (h *header) ehdrSize() int {
	if h.is64 {
		return 64
	}
	return 52
}

func (h *header) shdrSize() int {
	if h.is64 {
		return 64
	}
	return 40
}

func (h *header) phdrSize() int {
	if h.is64 {
		return 56
	}
	return 32
}

// word reads a field of the file's class width at off of b.
func (h *header) word(b []byte, off int) uint64 {
	if h.is64 {
		return h.order.Uint64(b[off:])
	}
	return uint64(h.order.Uint32(b[off:]))
}

func (h *header) putWord(b []byte, off int, v uint64) {
	if h.is64 {
		h.order.PutUint64(b[off:], v)
	} else {
		h.order.PutUint32(b[off:], uint32(v))
	}
}

// ehdrField gives the offsets of e_phoff, e_shoff and the half-words from
// e_ehsize on, which differ between the classes.
func (h *header) ehdrField() (phoff, shoff, ehsize int) {
	if h.is64 {
		return 32, 40, 52
	}
	return 28, 32, 40
}

func (h *header) parseEhdr() {
	e := h.ehdr
	h.typ = elf.Type(h.order.Uint16(e[16:]))
	h.machine = elf.Machine(h.order.Uint16(e[18:]))
	ph, _, hs := h.ehdrField()
	h.phoff = h.word(e, ph)
	h.phent = int(h.order.Uint16(e[hs+2:]))
	h.phnum = int(h.order.Uint16(e[hs+4:]))
	h.shstrndx = int(h.order.Uint16(e[hs+10:]))
}

func (h *header) putSection(b []byte, s section) {
	o := h.order
	o.PutUint32(b, s.name)
	o.PutUint32(b[4:], uint32(s.typ))
	if h.is64 {
		o.PutUint64(b[8:], s.flags)
		o.PutUint64(b[16:], s.addr)
		o.PutUint64(b[24:], s.offset)
		o.PutUint64(b[32:], s.size)
		o.PutUint32(b[40:], s.link)
		o.PutUint32(b[44:], s.info)
		o.PutUint64(b[48:], s.addralign)
		o.PutUint64(b[56:], s.entsize)
		return
	}
	o.PutUint32(b[8:], uint32(s.flags))
	o.PutUint32(b[12:], uint32(s.addr))
	o.PutUint32(b[16:], uint32(s.offset))
	o.PutUint32(b[20:], uint32(s.size))
	o.PutUint32(b[24:], s.link)
	o.PutUint32(b[28:], s.info)
	o.PutUint32(b[32:], uint32(s.addralign))
	o.PutUint32(b[36:], uint32(s.entsize))
}

// find returns the index of the first section named name, as pahole's
// loop over the sections finds it, or 0.
func (h *header) find(name string) int {
	for i := 1; i < h.file.NumSections(); i++ {
		if h.file.Named(h.file.Section(i), name) {
			return i
		}
	}
	return 0
}
