package builder

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// elfSection is a section that ELF and ELFDistilled write, in order
// after the null section.
type elfSection struct {
	name  string
	typ   elf.SectionType
	data  []byte
	align uint64
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
	secs := []elfSection{{".BTF", elf.SHT_PROGBITS, raw, 4}}
	if base != nil {
		if bo, _, err := wire.ByteOrderOf(base); err != nil || bo != order {
			return nil, fmt.Errorf("builder: ELF: .BTF.base is not BTF in .BTF's byte order")
		}
		secs = append(secs, elfSection{".BTF.base", elf.SHT_PROGBITS, base, 4})
	}
	return writeELF(order, secs)
}

// writeELF writes the ELF object of ELFDistilled with the BTF sections secs
// in byte order order.
func writeELF(order binary.ByteOrder, secs []elfSection) ([]byte, error) {
	data := elf.ELFDATA2LSB
	if !isLittle(order) {
		data = elf.ELFDATA2MSB
	}
	const ehdrSize, shdrSize, symSize = 64, 64, 24
	strtab := len(secs) + 2 // the index of .strtab, past the null section
	secs = append(secs, elfSection{".symtab", elf.SHT_SYMTAB, make([]byte, symSize), 8},
		elfSection{".strtab", elf.SHT_STRTAB, []byte{0}, 1}, elfSection{".shstrtab", elf.SHT_STRTAB, nil, 1})
	shstr := []byte{0}
	nameOff := make([]uint32, len(secs))
	for i, s := range secs {
		nameOff[i] = uint32(len(shstr))
		shstr = append(append(shstr, s.name...), 0)
	}
	secs[len(secs)-1].data = shstr
	raw := secs[0].data

	out := make([]byte, ehdrSize, ehdrSize+len(raw)+256+shdrSize*(len(secs)+1))
	offs := make([]uint64, len(secs))
	for i, c := range secs {
		for uint64(len(out))%c.align != 0 {
			out = append(out, 0)
		}
		offs[i] = uint64(len(out))
		out = append(out, c.data...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))

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
	head, err := binary.Append(nil, order, &hdr)
	if err != nil {
		return nil, err
	}
	copy(out, head)

	out = append(out, make([]byte, shdrSize)...) // the null section
	for i, s := range secs {
		sh := elf.Section64{
			Name: nameOff[i], Type: uint32(s.typ), Off: offs[i], Size: uint64(len(s.data)), Addralign: s.align,
		}
		if s.typ == elf.SHT_SYMTAB {
			sh.Link, sh.Info, sh.Entsize = uint32(strtab), 1, symSize // .strtab; one local (null) symbol
		}
		if out, err = binary.Append(out, order, &sh); err != nil {
			return nil, err
		}
	}
	return out, nil
}
