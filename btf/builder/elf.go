package builder

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// elfSection is a section that ELF and ELFDistilled write, in order
// after the null section: data, or size bytes that fill writes.
type elfSection struct {
	name  string
	typ   elf.SectionType
	data  []byte
	align uint64
	size  int                     // with fill: the number of bytes fill writes
	fill  func(w io.Writer) error // writes the data when it is not held
}

// write writes the section's data to w.
func (s *elfSection) write(w io.Writer) error {
	if s.fill != nil {
		return s.fill(w)
	}
	_, err := w.Write(s.data)
	return err
}

func (s *elfSection) len() int {
	if s.fill != nil {
		return s.size
	}
	return len(s.data)
}

// ELF wraps raw BTF in a minimal 64-bit ELF relocatable object for the BPF
// machine, in the byte order of the BTF: a .BTF section holding raw, an
// empty symbol table (with its string table; libbpf and cilium/ebpf expect
// one) and the section name table. Data that does not start with the BTF
// magic number gives an error; nothing else of raw is checked.
func ELF(raw []byte) ([]byte, error) { return ELFDistilled(raw, nil) }

// ELFDistilled is ELF for a module's BTF on its distilled base (see
// btf/distill): a .BTF.base section holding base follows .BTF, as in a
// module built with pahole's distilled_base feature. A nil base writes no
// .BTF.base, as ELF.
func ELFDistilled(raw, base []byte) ([]byte, error) {
	order, _, err := wire.ByteOrderOf(raw)
	if err != nil {
		return nil, fmt.Errorf("builder: ELF: %w", err)
	}
	secs := []elfSection{{name: ".BTF", typ: elf.SHT_PROGBITS, data: raw, align: btfAlign}}
	if base != nil {
		if bo, _, err := wire.ByteOrderOf(base); err != nil || bo != order {
			return nil, fmt.Errorf("builder: ELF: .BTF.base is not BTF in .BTF's byte order")
		}
		secs = append(secs, elfSection{name: ".BTF.base", typ: elf.SHT_PROGBITS, data: base, align: btfAlign})
	}
	var out bytes.Buffer
	out.Grow(len(raw) + len(base) + 512)
	if err := writeELF(&out, order, secs); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// elfHeaderSize is the size of a 64-bit ELF header, and btfAlign the
// alignment of the BTF sections in the object.
const (
	elfHeaderSize = 64
	btfAlign      = 4
)

// elfFirstOffset returns the offset in writeELF's object of its first
// section, aligned to align, as writeELF lays it out.
func elfFirstOffset(align uint64) uint64 {
	return (elfHeaderSize + align - 1) / align * align
}

// writeELF writes to w the ELF object of ELFDistilled with the BTF
// sections secs in byte order order: the ELF header, each section's data
// at its aligned offset, then the section header table.
func writeELF(w io.Writer, order binary.ByteOrder, secs []elfSection) error {
	data := elf.ELFDATA2LSB
	if !isLittle(order) {
		data = elf.ELFDATA2MSB
	}
	const ehdrSize, shdrSize, symSize = elfHeaderSize, 64, 24
	strtab := len(secs) + 2 // the index of .strtab, past the null section
	secs = append(secs, elfSection{name: ".symtab", typ: elf.SHT_SYMTAB, data: make([]byte, symSize), align: 8},
		elfSection{name: ".strtab", typ: elf.SHT_STRTAB, data: []byte{0}, align: 1},
		elfSection{name: ".shstrtab", typ: elf.SHT_STRTAB, align: 1})
	shstr := []byte{0}
	nameOff := make([]uint32, len(secs))
	for i, s := range secs {
		nameOff[i] = uint32(len(shstr))
		shstr = append(append(shstr, s.name...), 0)
	}
	secs[len(secs)-1].data = shstr

	offs := make([]uint64, len(secs))
	end := uint64(ehdrSize)
	for i := range secs {
		end = (end + secs[i].align - 1) / secs[i].align * secs[i].align
		offs[i] = end
		end += uint64(secs[i].len())
	}
	shoff := (end + 7) &^ 7

	var ident [elf.EI_NIDENT]byte
	copy(ident[:], elf.ELFMAG)
	ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	ident[elf.EI_DATA] = byte(data)
	ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	hdr := elf.Header64{
		Ident: ident, Type: uint16(elf.ET_REL), Machine: uint16(elf.EM_BPF), Version: uint32(elf.EV_CURRENT),
		Shoff: shoff, Ehsize: ehdrSize, Shentsize: shdrSize,
		Shnum: uint16(len(secs) + 1), Shstrndx: uint16(len(secs)),
	}
	out, err := binary.Append(nil, order, &hdr)
	if err != nil {
		return err
	}
	pos := uint64(0)
	for i := range secs {
		if out, err = flushELF(w, out, &pos, offs[i]); err != nil {
			return err
		}
		if err := secs[i].write(w); err != nil {
			return err
		}
		pos += uint64(secs[i].len())
	}
	if out, err = flushELF(w, out, &pos, shoff); err != nil {
		return err
	}
	out = append(out, make([]byte, shdrSize)...) // the null section
	for i, s := range secs {
		sh := elf.Section64{
			Name: nameOff[i], Type: uint32(s.typ), Off: offs[i], Size: uint64(s.len()), Addralign: s.align,
		}
		if s.typ == elf.SHT_SYMTAB {
			sh.Link, sh.Info, sh.Entsize = uint32(strtab), 1, symSize // .strtab; one local (null) symbol
		}
		if out, err = binary.Append(out, order, &sh); err != nil {
			return err
		}
	}
	_, err = w.Write(out)
	return err
}

// flushELF pads out, whose first byte is at offset *pos of the object,
// with zeros up to offset at, writes it to w and returns it emptied, with
// *pos advanced to at.
func flushELF(w io.Writer, out []byte, pos *uint64, at uint64) ([]byte, error) {
	for *pos+uint64(len(out)) < at {
		out = append(out, 0)
	}
	if _, err := w.Write(out); err != nil {
		return out, err
	}
	*pos += uint64(len(out))
	return out[:0], nil
}
