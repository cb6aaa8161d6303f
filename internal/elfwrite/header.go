package elfwrite

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// header is what replace needs of an ELF file: its class, byte order,
// ELF header fields and section headers, read as they are in the file.
type header struct {
	is64  bool
	order binary.ByteOrder
	size  int64 // of the file

	ehdr     []byte // the ELF header as in the file
	typ      elf.Type
	machine  elf.Machine
	phoff    uint64
	phnum    int
	phent    int
	shoff    uint64
	shnum    int // resolved through section 0 when e_shnum is 0
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

// Limits a file's headers must respect: more sections than this is not an
// ELF file any tool writes.
const maxSections = 1 << 20

var errFormat = errors.New("not an ELF file")

// readHeader reads and checks the ELF and section headers of the file r of
// the given size.
func readHeader(r io.ReaderAt, size int64) (*header, error) {
	var id [elf.EI_NIDENT]byte
	if _, err := r.ReadAt(id[:], 0); err != nil || string(id[:4]) != elf.ELFMAG {
		return nil, errFormat
	}
	h := &header{size: size}
	switch elf.Class(id[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		h.is64 = true
	case elf.ELFCLASS32:
	default:
		return nil, fmt.Errorf("ELF header: unknown class %d", id[elf.EI_CLASS])
	}
	switch elf.Data(id[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		h.order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		h.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("ELF header: unknown byte order %d", id[elf.EI_DATA])
	}
	h.ehdr = make([]byte, h.ehdrSize())
	if _, err := r.ReadAt(h.ehdr, 0); err != nil {
		return nil, fmt.Errorf("ELF header: %w", truncated(err))
	}
	h.parseEhdr()
	if err := h.readSections(r); err != nil {
		return nil, err
	}
	return h, nil
}

func truncated(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
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
	ph, sh, hs := h.ehdrField()
	h.phoff = h.word(e, ph)
	h.shoff = h.word(e, sh)
	h.phent = int(h.order.Uint16(e[hs+2:]))
	h.phnum = int(h.order.Uint16(e[hs+4:]))
	h.shnum = int(h.order.Uint16(e[hs+8:]))
	h.shstrndx = int(h.order.Uint16(e[hs+10:]))
}

// readSections reads the section header table, resolving the extended
// section count and string table index of section 0.
func (h *header) readSections(r io.ReaderAt) error {
	ent := int64(h.shdrSize())
	if h.shoff == 0 || h.shoff > uint64(h.size) || uint64(h.size)-h.shoff < uint64(ent) {
		return fmt.Errorf("ELF header: no section header table")
	}
	if _, _, hs := h.ehdrField(); int(h.order.Uint16(h.ehdr[hs+6:])) != int(ent) {
		return fmt.Errorf("ELF header: section header size %d, want %d", h.order.Uint16(h.ehdr[hs+6:]), ent)
	}
	first := make([]byte, ent)
	if _, err := r.ReadAt(first, int64(h.shoff)); err != nil {
		return fmt.Errorf("section headers: %w", truncated(err))
	}
	s0 := h.parseSection(first)
	if h.shnum == 0 {
		if s0.size > maxSections {
			return fmt.Errorf("ELF header: %d sections", s0.size)
		}
		h.shnum = int(s0.size)
	}
	if h.shstrndx == int(elf.SHN_XINDEX) {
		h.shstrndx = int(s0.link)
	}
	if h.shnum == 0 || uint64(h.shnum)*uint64(ent) > uint64(h.size)-h.shoff {
		return fmt.Errorf("section headers: %d of them do not fit in the file", h.shnum)
	}
	if h.shstrndx <= 0 || h.shstrndx >= h.shnum {
		return fmt.Errorf("ELF header: section name table %d out of range", h.shstrndx)
	}
	buf := make([]byte, int64(h.shnum)*ent)
	if _, err := r.ReadAt(buf, int64(h.shoff)); err != nil {
		return fmt.Errorf("section headers: %w", truncated(err))
	}
	h.sections = make([]section, h.shnum)
	for i := range h.sections {
		s := h.parseSection(buf[int64(i)*ent:])
		if s.typ != elf.SHT_NOBITS && i > 0 && (s.offset > uint64(h.size) || s.size > uint64(h.size)-s.offset) {
			return fmt.Errorf("section %d: offset %#x size %#x beyond the file's end", i, s.offset, s.size)
		}
		if s.addralign&(s.addralign-1) != 0 {
			return fmt.Errorf("section %d: alignment %d is not a power of two", i, s.addralign)
		}
		h.sections[i] = s
	}
	return nil
}

func (h *header) parseSection(b []byte) section {
	o := h.order
	if h.is64 {
		return section{name: o.Uint32(b), typ: elf.SectionType(o.Uint32(b[4:])), flags: o.Uint64(b[8:]),
			addr: o.Uint64(b[16:]), offset: o.Uint64(b[24:]), size: o.Uint64(b[32:]), link: o.Uint32(b[40:]),
			info: o.Uint32(b[44:]), addralign: o.Uint64(b[48:]), entsize: o.Uint64(b[56:])}
	}
	return section{name: o.Uint32(b), typ: elf.SectionType(o.Uint32(b[4:])), flags: uint64(o.Uint32(b[8:])),
		addr: uint64(o.Uint32(b[12:])), offset: uint64(o.Uint32(b[16:])), size: uint64(o.Uint32(b[20:])),
		link: o.Uint32(b[24:]), info: o.Uint32(b[28:]), addralign: uint64(o.Uint32(b[32:])),
		entsize: uint64(o.Uint32(b[36:]))}
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
func (h *header) find(r io.ReaderAt, name string) (int, error) {
	st := h.sections[h.shstrndx]
	if st.typ == elf.SHT_NOBITS || st.size > 1<<30 {
		return 0, fmt.Errorf("section name table: bad header")
	}
	strs := make([]byte, st.size)
	if _, err := r.ReadAt(strs, int64(st.offset)); err != nil {
		return 0, fmt.Errorf("section name table: %w", truncated(err))
	}
	for i := 1; i < len(h.sections); i++ {
		off := uint64(h.sections[i].name)
		if off >= uint64(len(strs)) {
			continue
		}
		rest := strs[off:]
		if len(rest) > len(name) && string(rest[:len(name)]) == name && rest[len(name)] == 0 {
			return i, nil
		}
	}
	return 0, nil
}
