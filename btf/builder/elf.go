package builder

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// ELF sections written by ELF, in order after the null section.
var elfSections = []struct {
	name string
	typ  elf.SectionType
}{
	{".BTF", elf.SHT_PROGBITS},
	{".symtab", elf.SHT_SYMTAB},
	{".strtab", elf.SHT_STRTAB},
	{".shstrtab", elf.SHT_STRTAB},
}

// ELF wraps raw BTF in a minimal 64-bit ELF relocatable object for the BPF
// machine, in the byte order of the BTF: a .BTF section holding raw, an
// empty symbol table (with its string table; libbpf and cilium/ebpf expect
// one) and the section name table. Data that does not start with the BTF
// magic number gives an error; nothing else of raw is checked.
func ELF(raw []byte) ([]byte, error) {
	order, _, err := wire.ByteOrderOf(raw)
	if err != nil {
		return nil, fmt.Errorf("builder: ELF: %w", err)
	}
	data := elf.ELFDATA2LSB
	if !isLittle(order) {
		data = elf.ELFDATA2MSB
	}

	shstr := []byte{0}
	nameOff := make([]uint32, len(elfSections))
	for i, s := range elfSections {
		nameOff[i] = uint32(len(shstr))
		shstr = append(append(shstr, s.name...), 0)
	}
	const ehdrSize, shdrSize, symSize = 64, 64, 24
	contents := [][]byte{raw, make([]byte, symSize), {0}, shstr}
	align := []uint64{4, 8, 1, 1}

	out := make([]byte, ehdrSize, ehdrSize+len(raw)+256+shdrSize*(len(elfSections)+1))
	offs := make([]uint64, len(contents))
	for i, c := range contents {
		for uint64(len(out))%align[i] != 0 {
			out = append(out, 0)
		}
		offs[i] = uint64(len(out))
		out = append(out, c...)
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
		Shnum: uint16(len(elfSections) + 1), Shstrndx: uint16(len(elfSections)),
	}
	head, err := binary.Append(nil, order, &hdr)
	if err != nil {
		return nil, err
	}
	copy(out, head)

	out = append(out, make([]byte, shdrSize)...) // the null section
	for i, s := range elfSections {
		sh := elf.Section64{
			Name: nameOff[i], Type: uint32(s.typ), Off: offs[i], Size: uint64(len(contents[i])), Addralign: align[i],
		}
		if s.typ == elf.SHT_SYMTAB {
			sh.Link, sh.Info, sh.Entsize = 3, 1, symSize // .strtab; one local (null) symbol
		}
		if out, err = binary.Append(out, order, &sh); err != nil {
			return nil, err
		}
	}
	return out, nil
}
