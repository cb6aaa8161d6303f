package elfwrite

import (
	"cmp"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"slices"
)

// plan is the file that libelf's elf_update writes once one section's
// data is replaced: the new section headers, which sections it writes
// (the replaced one and every one that moved), and where the program and
// section header tables go.
type plan struct {
	h      *header
	idx    int    // the replaced section
	data   []byte // its new contents
	secs   []section
	moved  []bool // written by libelf: replaced or at a new offset
	phoff  uint64
	shoff  uint64
	total  int64
	shnumE uint16 // e_shnum as written
}

// layout computes the file elf_update writes when section idx holds data,
// as elfutils' updatenull does without ELF_F_LAYOUT: the ELF header, the
// program headers right after it, every section in index order at the
// next offset its alignment allows (SHT_NOBITS taking no room), and the
// section header table at the next multiple of the class's word. A
// section's alignment of 0 becomes 1, and the entry sizes libelf knows
// are set.
func (h *header) layout(idx int, data []byte) (*plan, error) {
	p := &plan{h: h, idx: idx, data: data, secs: slices.Clone(h.sections), moved: make([]bool, len(h.sections))}
	size := uint64(h.ehdrSize())
	if h.phnum > 0 {
		p.phoff = size
		size += uint64(h.phnum) * uint64(h.phdrSize())
	}
	word := uint64(4)
	if h.is64 {
		word = 8
	}
	for i := 1; i < len(p.secs); i++ {
		s := &p.secs[i]
		if err := h.fixEntsize(s); err != nil {
			return nil, fmt.Errorf("section %d: %w", i, err)
		}
		align := max(s.addralign, 1)
		if s.flags&uint64(elf.SHF_COMPRESSED) != 0 {
			align = word // the alignment of a compression header
		}
		s.addralign = align
		if i == idx {
			// elf_update refuses data that is not a whole number of
			// the section's entries ("invalid section entry size"),
			// and pahole with it: a .BTF with an odd sh_entsize, or
			// a relocation section named .BTF.
			if s.entsize > 1 && uint64(len(data))%s.entsize != 0 {
				return nil, fmt.Errorf("section %d: %d bytes of data are not a whole number of its entries of %d bytes", i, len(data), s.entsize)
			}
			s.size = uint64(len(data))
		}
		size = (size + align - 1) &^ (align - 1)
		if size != s.offset || i == idx {
			p.moved[i] = true
		}
		s.offset = size
		if s.typ != elf.SHT_NOBITS {
			size += s.size
		}
	}
	p.shoff = (size + word - 1) &^ (word - 1)
	// Alignments could make a file of a few bytes terabytes long: what
	// libelf would write, but no ELF file a tool makes.
	if limit := 2*(uint64(h.size)+uint64(len(data))) + 1<<20; p.shoff > limit {
		return nil, fmt.Errorf("laid out again, the file would be %d bytes long", p.shoff)
	}
	p.total = int64(p.shoff) + int64(len(p.secs))*int64(h.shdrSize())
	if len(p.secs) < int(elf.SHN_LORESERVE) {
		p.shnumE = uint16(len(p.secs))
	}
	return p, nil
}

// fixEntsize sets s.entsize for the section types whose entry size libelf
// knows.
func (h *header) fixEntsize(s *section) error {
	sym, rela, rel, dyn := uint64(16), uint64(12), uint64(8), uint64(8)
	if h.is64 {
		sym, rela, rel, dyn = 24, 24, 16, 16
	}
	switch s.typ {
	case elf.SHT_SYMTAB, elf.SHT_DYNSYM:
		s.entsize = sym
	case elf.SHT_RELA:
		s.entsize = rela
	case elf.SHT_REL:
		s.entsize = rel
	case elf.SHT_DYNAMIC:
		s.entsize = dyn
	case elf.SHT_GROUP:
		if h.typ != elf.ET_REL {
			return fmt.Errorf("a section group outside a relocatable file")
		}
		s.entsize = 4
	case elf.SHT_SYMTAB_SHNDX:
		s.entsize = 4
	case elf.SHT_HASH:
		s.entsize = 4
		if h.is64 && (h.machine == elf.EM_ALPHA || h.machine == elf.EM_S390) {
			s.entsize = 8
		}
	}
	return nil
}

// ehdr returns the ELF header as libelf writes it.
func (p *plan) ehdr() ([]byte, error) {
	h := p.h
	e := slices.Clone(h.ehdr)
	e[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	switch v := h.order.Uint32(e[20:]); v {
	case 0:
		h.order.PutUint32(e[20:], uint32(elf.EV_CURRENT))
	case uint32(elf.EV_CURRENT):
	default:
		return nil, fmt.Errorf("ELF header: unknown version %d", v)
	}
	ph, sh, hs := h.ehdrField()
	h.putWord(e, ph, p.phoff)
	h.putWord(e, sh, p.shoff)
	h.order.PutUint16(e[hs:], uint16(h.ehdrSize()))
	h.order.PutUint16(e[hs+8:], p.shnumE)
	return e, nil
}

// write writes the planned file to dst, from the original file src: a
// copy of src, cut or grown to the new size, with the headers and the
// moved sections written over it and the gaps before them zeroed, as
// elfutils' updatefile writes into the file it opened. The bytes of gaps
// between sections that did not move stay as they were.
func (p *plan) write(dst *os.File, src *os.File) error {
	h := p.h
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(dst, io.LimitReader(src, p.total)); err != nil {
		return err
	}
	if err := dst.Truncate(p.total); err != nil {
		return err
	}
	e, err := p.ehdr()
	if err != nil {
		return err
	}
	if _, err := dst.WriteAt(e, 0); err != nil {
		return err
	}
	last := int64(h.ehdrSize())
	if h.phnum > 0 {
		n := int64(h.phnum) * int64(h.phdrSize())
		if h.phoff > uint64(h.size) || uint64(n) > uint64(h.size)-h.phoff {
			return fmt.Errorf("program headers beyond the file's end")
		}
		if err := copyRange(dst, int64(p.phoff), src, int64(h.phoff), n); err != nil {
			return err
		}
		last = int64(p.phoff) + n
	}
	if last, err = p.writeSections(dst, src, last); err != nil {
		return err
	}
	if err := zero(dst, last, int64(p.shoff)); err != nil {
		return err
	}
	tab := make([]byte, len(p.secs)*h.shdrSize())
	for i, s := range p.secs {
		h.putSection(tab[i*h.shdrSize():], s)
	}
	_, err = dst.WriteAt(tab, int64(p.shoff))
	return err
}

// writeSections writes the sections in the order of their new offsets
// and returns the end of the last one: a moved section is written with
// the gap before it zeroed, and so is the gap before an unmoved section
// that follows a written one.
func (p *plan) writeSections(dst, src *os.File, last int64) (int64, error) {
	order := make([]int, 0, len(p.secs))
	for i := 1; i < len(p.secs); i++ {
		if p.secs[i].typ != elf.SHT_NOBITS {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := p.secs[a], p.secs[b]
		return cmp.Or(cmp.Compare(sa.offset, sb.offset), cmp.Compare(sa.size, sb.size), cmp.Compare(a, b))
	})
	previous := true // the headers were written
	for _, i := range order {
		s := p.secs[i]
		start := int64(s.offset)
		if p.moved[i] || previous {
			if err := zero(dst, last, start); err != nil {
				return 0, err
			}
		}
		if p.moved[i] {
			var err error
			if i == p.idx {
				_, err = dst.WriteAt(p.data, start)
			} else {
				err = copyRange(dst, start, src, int64(p.h.sections[i].offset), int64(s.size))
			}
			if err != nil {
				return 0, err
			}
		}
		last = start + int64(s.size)
		previous = p.moved[i]
	}
	return last, nil
}

// copyRange copies n bytes of src at off to dst at to.
func copyRange(dst *os.File, to int64, src *os.File, off, n int64) error {
	_, err := io.Copy(io.NewOffsetWriter(dst, to), io.NewSectionReader(src, off, n))
	return err
}

var zeros [64 << 10]byte

// zero writes zeros over [from, to) of f, if that is not empty.
func zero(f *os.File, from, to int64) error {
	for from < to {
		n := min(to-from, int64(len(zeros)))
		if _, err := f.WriteAt(zeros[:n], from); err != nil {
			return err
		}
		from += n
	}
	return nil
}
