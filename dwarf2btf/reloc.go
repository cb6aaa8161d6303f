package dwarf2btf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// relocate applies the relocations of a relocatable object (a .ko) to its
// debug sections, with symbol values placed by layout, as libdwfl's
// __libdwfl_relocate does when pahole opens a module. A section is copied
// before its first change; those without relocations (.debug_str) and the
// relocations themselves are read in place.
//
// Like libdwfl, which relocates "partially" (relocate_section's partial
// argument is always true there), a relocation of a type that is not
// simple data (relocKindOf), or against an undefined symbol, is left
// unapplied; a relocation outside its section is an error.
func (o *object) relocate(f *elf.File) error {
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL {
			continue
		}
		if int(rs.Info) >= len(f.Sections) {
			if rs.Size == 0 {
				continue
			}
			// libdwfl's __libdwfl_relocate fails on a relocation
			// section whose target (sh_info) does not exist, and
			// pahole with it: left unapplied, a module's debug
			// relocations give every name .debug_str's first string.
			return pkgerr.Errorf("dwarf2btf: section %s: relocates section %d, past the %d sections", rs.Name, rs.Info, len(f.Sections))
		}
		target, ok := o.debugAt(int(rs.Info))
		if !ok {
			continue
		}
		if rs.Type == elf.SHT_RELA && rs.Size > 0 && !knowsRelocs(f.Machine) {
			return pkgerr.Errorf("dwarf2btf: section %s: relocations of machine %v are not supported", rs.Name, f.Machine)
		}
		sec := o.debug[target]
		raw, err := o.sectionData(rs)
		if err != nil {
			return pkgerr.Errorf("dwarf2btf: section %s: %w", rs.Name, err)
		}
		if !o.copied[target] {
			sec = o.copyOut(target, sec)
			o.debug[target], o.copied[target] = sec, true
		}
		if err := o.applyRelocs(sec, raw, rs.Type == elf.SHT_RELA, f.Machine); err != nil {
			return pkgerr.Errorf("dwarf2btf: relocating %s: %w", target, err)
		}
	}
	return nil
}

// copyOut copies section name before it is changed: into an anonymous
// mapping, whose pages the encoding can give back behind the merge as it
// does a file's (kvm.ko's .debug_info is 4.4 MB), or onto the heap if it
// is smaller than mmap.MinSlice (a mapping, its faults and its unmapping
// cost more than the copy) or the mapping fails.
func (o *object) copyOut(name string, sec []byte) []byte {
	if len(sec) < mmap.MinSlice {
		return bytes.Clone(sec)
	}
	g, err := mmap.New(len(sec))
	if err != nil {
		return bytes.Clone(sec)
	}
	b := g.Bytes()[:len(sec):len(sec)]
	copy(b, sec)
	if o.anon == nil {
		o.anon = map[string]*mmap.Region{}
	}
	o.anon[name] = g
	return b
}

// debugAt returns the name of the debug section read from ELF section i,
// if one was: relocations of a .zdebug section apply to it inflated.
func (o *object) debugAt(i int) (string, bool) {
	for name, j := range o.debugIdx {
		if j == i {
			return name, true
		}
	}
	return "", false
}

// relocEntry is one relocation record, of either form and class.
type relocEntry struct {
	off    uint64
	typ    uint32
	sym    uint32
	addend int64 // 0 for SHT_REL, whose addend is in the bytes relocated
}

// relocEntrySize returns the size of one record of an SHT_RELA (rela) or
// SHT_REL section of the object's class.
func (o *object) relocEntrySize(rela bool) int {
	n := 16
	if o.class32 {
		n = 8
	}
	if rela {
		n += n / 2
	}
	return n
}

// The fields of the relocation records after r_offset, by offset: Elf32_Rel
// and Elf32_Rela's r_info and r_addend, and Elf64's.
const (
	rel32Info   = 4
	rel32Addend = 8
	rel64Info   = 8
	rel64Addend = 16
)

// The bytes of a MIPS64 record's r_info, which the MIPS64 ELF ABI lays
// out as a struct rather than as one Elf64_Xword: r_sym (a word in the
// file's order), r_ssym, r_type3, r_type2, r_type.
const (
	mips64Sym   = rel64Info
	mips64Type3 = rel64Info + 5
	mips64Type2 = rel64Info + 6
	mips64Type  = rel64Info + 7
)

// relocAt decodes the record at the start of b (relocEntrySize bytes).
// Elf32's r_info holds the symbol in its high 24 bits and the type in its
// low 8; Elf64's the symbol in its high 32 bits and the type in its low 32,
// but for MIPS64's (mips64Info).
func (o *object) relocAt(b []byte, rela bool) relocEntry {
	if o.class32 {
		info := o.order.Uint32(b[rel32Info:])
		e := relocEntry{off: uint64(o.order.Uint32(b)), typ: info & 0xff, sym: info >> 8}
		if rela {
			e.addend = int64(int32(o.order.Uint32(b[rel32Addend:])))
		}
		return e
	}
	var e relocEntry
	if o.le && elf.Machine(o.machine) != elf.EM_MIPS {
		// The common case without order's calls through its interface.
		info := binary.LittleEndian.Uint64(b[rel64Info:])
		e = relocEntry{off: binary.LittleEndian.Uint64(b), typ: uint32(info), sym: uint32(info >> 32)}
		if rela {
			e.addend = int64(binary.LittleEndian.Uint64(b[rel64Addend:]))
		}
		return e
	}
	if elf.Machine(o.machine) == elf.EM_MIPS {
		e = relocEntry{off: o.order.Uint64(b), typ: mips64Info(b), sym: o.order.Uint32(b[mips64Sym:])}
	} else {
		info := o.order.Uint64(b[rel64Info:])
		e = relocEntry{off: o.order.Uint64(b), typ: uint32(info), sym: uint32(info >> 32)}
	}
	if rela {
		e.addend = int64(o.order.Uint64(b[rel64Addend:]))
	}
	return e
}

// mips64Info returns the types of MIPS64 record b as one number, the first
// in its low byte, the second and third above it: the form elfutils'
// libelf gives r_info's type after reading a MIPS64 record, whose mips
// backend then classifies by the first type alone (mipsReloc). The ABI
// composes up to three operations at one place; gcc's debug sections
// have one, their second and third types R_MIPS_NONE. r_ssym names a
// special symbol only for the second and third, and is dropped as there.
func mips64Info(b []byte) uint32 {
	return uint32(b[mips64Type]) | uint32(b[mips64Type2])<<8 | uint32(b[mips64Type3])<<16
}

// applyRelocs applies the relocation records rel (SHT_RELA if rela, else
// SHT_REL) to sec, as libdwfl's relocate does each: a simple type writes
// symbol + addend (RELA) or adds the symbol to the bytes there (REL); an
// add/subtract type (RISC-V's label differences) adds or subtracts symbol
// + addend from the bytes there.
func (o *object) applyRelocs(sec, rel []byte, rela bool, m elf.Machine) error {
	size := o.relocEntrySize(rela)
	for off := 0; off+size <= len(rel); off += size {
		e := o.relocAt(rel[off:], rela)
		k := relocKindOf(m, e.typ)
		if k.size == 0 || k.addsub != 0 && !rela {
			continue // libdwfl: DWFL_E_BADRELTYPE, skipped
		}
		v, ok, err := o.symValue(e.sym)
		if err != nil {
			return err
		}
		if !ok {
			continue // libdwfl: DWFL_E_RELUNDEF, skipped
		}
		n := uint64(k.size)
		if e.off > uint64(len(sec)) || uint64(len(sec))-e.off < n {
			return fmt.Errorf("dwarf2btf: relocation at %#x outside the section", e.off)
		}
		b := sec[e.off : e.off+n]
		switch {
		case !rela:
			v += o.readWord(b)
		case k.addsub > 0:
			v = o.readWord(b) + v + uint64(e.addend)
		case k.addsub < 0:
			v = o.readWord(b) - (v + uint64(e.addend))
		default:
			v += uint64(e.addend)
		}
		o.writeWord(b, v)
	}
	return nil
}

// readWord reads the 1-, 2-, 4- or 8-byte word b in the object's order.
func (o *object) readWord(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(o.order.Uint16(b))
	case 4:
		return uint64(o.order.Uint32(b))
	}
	return o.order.Uint64(b)
}

// writeWord stores v, truncated, in the 1-, 2-, 4- or 8-byte word b.
func (o *object) writeWord(b []byte, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		o.order.PutUint16(b, uint16(v))
	case 4:
		o.order.PutUint32(b, uint32(v))
	default:
		o.order.PutUint64(b, v)
	}
}
