package dwarf2btf

import (
	"bytes"
	"debug/elf"
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// relocate applies the RELA relocations of a relocatable object (a .ko) to
// its debug sections, with symbol values placed by layout, as libdwfl does
// for pahole. A section is copied before its first change; those without
// relocations (.debug_str) and the relocations themselves are read in
// place. Only the absolute relocation types that compilers emit in
// debug sections are supported: 64- and 32-bit on x86-64 and arm64.
func (o *object) relocate(f *elf.File) error {
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || int(rs.Info) >= len(f.Sections) {
			continue
		}
		target, ok := o.debugAt(int(rs.Info))
		if !ok {
			continue
		}
		sec := o.debug[target]
		raw, err := o.sectionData(rs)
		if err != nil {
			return fmt.Errorf("dwarf2btf: section %s: %w", rs.Name, err)
		}
		if !o.copied[target] {
			sec = o.copyOut(target, sec)
			o.debug[target], o.copied[target] = sec, true
		}
		if err := o.applyRela(sec, raw, f.Machine); err != nil {
			return fmt.Errorf("dwarf2btf: relocating %s: %w", target, err)
		}
	}
	return nil
}

// copyOut copies section name before it is changed: into an anonymous
// mapping, whose pages the encoding can give back behind the merge as it
// does a file's (kvm.ko's .debug_info is 4.4 MB), or onto the heap if the
// mapping fails.
func (o *object) copyOut(name string, sec []byte) []byte {
	g, err := mmap.NewGrowable(len(sec))
	if err != nil {
		return bytes.Clone(sec)
	}
	b := g.Bytes()[:len(sec):len(sec)]
	copy(b, sec)
	if o.anon == nil {
		o.anon = map[string]*mmap.Growable{}
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

// relocSize returns the width in bytes of an absolute relocation type, or
// 0 for types that need no work and -1 for unsupported ones.
func relocSize(m elf.Machine, typ uint32) int {
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_NONE:
			return 0
		case elf.R_X86_64_64:
			return 8
		case elf.R_X86_64_32, elf.R_X86_64_32S:
			return 4
		}
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_NONE:
			return 0
		case elf.R_AARCH64_ABS64:
			return 8
		case elf.R_AARCH64_ABS32:
			return 4
		}
	}
	return -1
}

func (o *object) applyRela(sec, rela []byte, m elf.Machine) error {
	const entSize = 24
	for off := 0; off+entSize <= len(rela); off += entSize {
		where := o.order.Uint64(rela[off:])
		info := o.order.Uint64(rela[off+8:])
		addend := int64(o.order.Uint64(rela[off+16:]))
		typ, sym := uint32(info), uint32(info>>32)
		size := relocSize(m, typ)
		if size == 0 {
			continue
		}
		if size < 0 {
			return fmt.Errorf("relocation type %d for machine %v is not supported", typ, m)
		}
		if where > uint64(len(sec)) || uint64(len(sec))-where < uint64(size) {
			return fmt.Errorf("relocation at %#x outside the section", where)
		}
		v, ok := o.symValue(sym)
		if !ok {
			return fmt.Errorf("relocation refers to symbol %d of %d", sym, o.symtab.len())
		}
		v += uint64(addend)
		if size == 8 {
			o.order.PutUint64(sec[where:], v)
		} else {
			o.order.PutUint32(sec[where:], uint32(v))
		}
	}
	return nil
}
