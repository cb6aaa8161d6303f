package dwarf2btf

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// relocObject is an object with two symbols after the null one: 1 at 0x10
// in allocated section 1 (laid out at 0x10000), 2 undefined.
func relocObject(order binary.ByteOrder, class32 bool) *object {
	ent := elf.Sym64Size
	if class32 {
		ent = elf.Sym32Size
	}
	syms := make([]byte, 2*ent)
	value, shndx := symValue, symShndx
	if class32 {
		value, shndx = sym32Value, sym32Info+2
		order.PutUint32(syms[value:], 0x10)
	} else {
		order.PutUint64(syms[value:], 0x10)
	}
	order.PutUint16(syms[shndx:], 1)
	return &object{order: order, class32: class32, addrs: []uint64{0, 0x10000}, alloc: []bool{false, true},
		symtab: &symTable{order: order, class32: class32, ent: ent, syms: syms, strs: []byte{0}}}
}

// mipsObject is relocObject for a MIPS64 file.
func mipsObject(order binary.ByteOrder) *object {
	o := relocObject(order, false)
	o.machine = uint16(elf.EM_MIPS)
	return o
}

// rela64 is one Elf64_Rela record.
func rela64(order binary.AppendByteOrder, off uint64, typ, sym uint32, addend int64) []byte {
	b := order.AppendUint64(nil, off)
	b = order.AppendUint64(b, uint64(sym)<<32|uint64(typ))
	return order.AppendUint64(b, uint64(addend))
}

// relaMips64 is one MIPS64 Elf64_Rela record: r_sym in the file's order,
// then r_ssym, r_type3, r_type2 and r_type, one byte each.
func relaMips64(order binary.AppendByteOrder, off uint64, sym uint32, typ, typ2, typ3 elf.R_MIPS, addend int64) []byte {
	b := order.AppendUint64(nil, off)
	b = order.AppendUint32(b, sym)
	b = append(b, 0, byte(typ3), byte(typ2), byte(typ))
	return order.AppendUint64(b, uint64(addend))
}

// TestApplyRelocs checks relocations of each form against the psABIs'
// formulas, as libdwfl applies them: S + A stored (RELA), S added to the
// field (REL), RISC-V's ADD/SUB pairs, and the relocations libdwfl skips
// (types that are not simple data, undefined symbols).
func TestApplyRelocs(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	const s = 0x10010 // symbol 1's value, laid out
	cases := []struct {
		name    string
		o       *object
		m       elf.Machine
		rela    bool
		sec     []byte
		rel     []byte
		want    []byte
		wantErr bool
	}{
		{"s390x R_390_64, big-endian", relocObject(be, false), elf.EM_S390, true, make([]byte, 8),
			rela64(be, 0, uint32(elf.R_390_64), 1, 5), be.AppendUint64(nil, s+5), false},
		{"s390x R_390_32", relocObject(be, false), elf.EM_S390, true, make([]byte, 4),
			rela64(be, 0, uint32(elf.R_390_32), 1, -16), be.AppendUint32(nil, s-16), false},
		{"ppc64 R_PPC64_ADDR64", relocObject(le, false), elf.EM_PPC64, true, make([]byte, 8),
			rela64(le, 0, uint32(elf.R_PPC64_ADDR64), 1, 1), le.AppendUint64(nil, s+1), false},
		{"riscv ADD32 and SUB32: a length", relocObject(le, false), elf.EM_RISCV, true, le.AppendUint32(nil, 100),
			append(rela64(le, 0, uint32(elf.R_RISCV_ADD32), 1, 40), rela64(le, 0, uint32(elf.R_RISCV_SUB32), 1, 8)...),
			le.AppendUint32(nil, 132), false},
		{"riscv SET6 left alone", relocObject(le, false), elf.EM_RISCV, true, []byte{0x41},
			rela64(le, 0, uint32(elf.R_RISCV_SET6), 1, 3), []byte{0x41}, false},
		{"undefined symbol left alone", relocObject(le, false), elf.EM_X86_64, true, make([]byte, 8),
			rela64(le, 0, uint32(elf.R_X86_64_64), 2, 3), make([]byte, 8), false},
		{"i386 REL R_386_32 adds", relocObject(le, true), elf.EM_386, false, le.AppendUint32(nil, 7),
			append(le.AppendUint32(nil, 0), le.AppendUint32(nil, 1<<8|uint32(elf.R_386_32))...), le.AppendUint32(nil, s+7), false},
		{"arm REL R_ARM_ABS32 adds", relocObject(le, true), elf.EM_ARM, false, le.AppendUint32(nil, 2),
			append(le.AppendUint32(nil, 0), le.AppendUint32(nil, 1<<8|uint32(elf.R_ARM_ABS32))...), le.AppendUint32(nil, s+2), false},
		{"mips64el R_MIPS_32", mipsObject(le), elf.EM_MIPS, true, make([]byte, 4),
			relaMips64(le, 0, 1, elf.R_MIPS_32, elf.R_MIPS_NONE, elf.R_MIPS_NONE, 0xe3b3), le.AppendUint32(nil, s+0xe3b3), false},
		{"mips64 R_MIPS_64, big-endian", mipsObject(be), elf.EM_MIPS, true, make([]byte, 8),
			relaMips64(be, 0, 1, elf.R_MIPS_64, elf.R_MIPS_NONE, elf.R_MIPS_NONE, -1), be.AppendUint64(nil, s-1), false},
		{"mips64el R_MIPS_16", mipsObject(le), elf.EM_MIPS, true, make([]byte, 2),
			relaMips64(le, 0, 1, elf.R_MIPS_16, elf.R_MIPS_NONE, elf.R_MIPS_NONE, 2), le.AppendUint16(nil, (s+2)&0xffff), false},
		{"mips64el code relocation left alone", mipsObject(le), elf.EM_MIPS, true, make([]byte, 4),
			relaMips64(le, 0, 1, elf.R_MIPS_HI16, elf.R_MIPS_NONE, elf.R_MIPS_NONE, 2), make([]byte, 4), false},
		{"mips64el first type decides, as in elfutils", mipsObject(le), elf.EM_MIPS, true, make([]byte, 8),
			relaMips64(le, 0, 1, elf.R_MIPS_64, elf.R_MIPS_SUB, elf.R_MIPS_NONE, 0), le.AppendUint64(nil, s), false},
		{"mipsel REL R_MIPS_32 adds", relocObject(le, true), elf.EM_MIPS, false, le.AppendUint32(nil, 3),
			append(le.AppendUint32(nil, 0), le.AppendUint32(nil, 1<<8|uint32(elf.R_MIPS_32))...), le.AppendUint32(nil, s+3), false},
		{"outside the section", relocObject(le, false), elf.EM_AARCH64, true, make([]byte, 8),
			rela64(le, 4, uint32(elf.R_AARCH64_ABS64), 1, 0), nil, true},
		{"symbol out of range", relocObject(le, false), elf.EM_AARCH64, true, make([]byte, 8),
			rela64(le, 0, uint32(elf.R_AARCH64_ABS64), 9, 0), nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.applyRelocs(c.sec, c.rel, c.rela, c.m)
			if c.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(c.sec, c.want) {
				t.Errorf("got % x, want % x", c.sec, c.want)
			}
		})
	}
}

// TestUnknownMachineRelocs: SHT_RELA relocations of a debug section on a
// machine whose relocation types the encoder does not know are refused in
// one line: left unapplied, their addends (not in the bytes) would make
// every name .debug_str's first string. 32-bit PowerPC's tags.c (which
// the encoder now knows: TestClangIdenticalToPahole) with its machine
// rewritten to EM_SPARC stands for such a machine.
func TestUnknownMachineRelocs(t *testing.T) {
	obj := testfixtures.Read(t, "dwarf/tags-ppc32.o.gz")
	if _, err := Encode(context.Background(), obj, Options{}, builder.Options{}); err != nil {
		t.Fatalf("32-bit PowerPC: %v", err)
	}
	sparc := bytes.Clone(obj)
	binary.BigEndian.PutUint16(sparc[18:], uint16(elf.EM_SPARC)) // e_machine
	_, err := Encode(context.Background(), sparc, Options{}, builder.Options{})
	if err == nil || !strings.Contains(err.Error(), "relocations of machine EM_SPARC are not supported") {
		t.Fatalf("EM_SPARC: got %v, want a refusal of its relocations", err)
	}
}

// TestRelocTargetPastSections (redteam14): a relocation section whose
// target (sh_info) is past the section table is refused in one line, as
// pahole 1.30 refuses it (libdwfl fails the relocation); it was skipped,
// and a module's .debug_info then encoded with every name .debug_str's
// first string (pahole 1.24 writes the same wrong names, status 0).
func TestRelocTargetPastSections(t *testing.T) {
	obj := testfixtures.Read(t, "elf/vsock_loopback.ko.gz")
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	var idx = -1
	for i, s := range f.Sections {
		if s.Name == ".rela.debug_info" {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatal("no .rela.debug_info")
	}
	bad := bytes.Clone(obj)
	shoff := binary.LittleEndian.Uint64(bad[0x28:])
	binary.LittleEndian.PutUint32(bad[shoff+uint64(idx)*64+44:], 0xfff0) // sh_info
	_, err = Encode(context.Background(), bad, Options{}, builder.Options{})
	if err == nil || !strings.Contains(err.Error(), "past the") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want a one-line refusal of .rela.debug_info's target", err)
	}
}
