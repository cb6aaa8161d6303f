package dwarf2btf

import (
	"debug/elf"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"

	"github.com/kmeta-dev/kmeta/btf"
)

// maxPercpuVars is pahole 1.24's MAX_PERCPU_VAR_CNT.
const maxPercpuVars = 4096

// symbols is what the encoder takes from the ELF symbol table: the names
// of functions (pahole emits a FUNC only for those) and the per-CPU
// variables. It is read-only once built and shared by the workers.
type symbols struct {
	funcs      map[string]struct{}
	funcBits   nameFilter  // of funcs
	percpu     []percpuVar // sorted by addr
	percpuBase uint64
	percpuSize uint64
	hasPercpu  bool

	// pahole 1.30's: the ELF functions table, the sections by address
	// (addrs, sizes, types as in object) and the names of the STT_OBJECT
	// symbols of .data..percpu.
	elf           *elfFuncs
	secAddrs      []uint64
	secSizes      []uint64
	secTypes      []elf.SectionType
	percpuIdx     int
	percpuObjects map[string]struct{}
}

type percpuVar struct {
	addr uint64
	size uint32
	name string
}

func (s *symbols) hasFuncs() bool { return len(s.funcs) > 0 }

func (s *symbols) isFunc(name []byte) bool {
	if !s.funcBits.mayHold(view(name)) {
		return false // most names looked up (inline functions)
	}
	_, ok := s.funcs[string(name)]
	return ok
}

// nameFilter is a bit filter of a set of names, the bits of their hashes:
// a name whose bit is clear is not in the set. It answers most names that
// are not in it without reading the set's memory, where the set is large
// (a vmlinux's functions) and most names looked up are not in it.
type nameFilter struct {
	bits []uint64
	seed maphash.Seed
}

// newNameFilter returns an empty filter for about n names, 16 bits a name.
func newNameFilter(n int) nameFilter {
	return nameFilter{bits: make([]uint64, max(1, n*16/64)), seed: maphash.MakeSeed()}
}

func (f *nameFilter) bit(name string) (int, uint64) {
	h := maphash.String(f.seed, name) % uint64(len(f.bits)*64)
	return int(h / 64), 1 << (h % 64)
}

func (f *nameFilter) add(name string) {
	i, b := f.bit(name)
	f.bits[i] |= b
}

// mayHold tells whether name may be in the set: false for a zero filter.
func (f *nameFilter) mayHold(name string) bool {
	if len(f.bits) == 0 {
		return false
	}
	i, b := f.bit(name)
	return f.bits[i]&b != 0
}

// newSymbols is btf_encoder__collect_symbols.
func newSymbols(o *object, percpu bool) (*symbols, error) {
	s := &symbols{funcs: map[string]struct{}{}}
	if o.symtab == nil {
		return s, nil
	}
	s.hasPercpu = o.percpuIdx != 0
	s.percpuBase, s.percpuSize = o.percpuAddr, o.percpuSize
	for _, sym := range o.symtab.all() {
		typ := elf.ST_TYPE(sym.Info)
		if percpu && s.hasPercpu && int(sym.Section) == o.percpuIdx && typ == elf.STT_OBJECT && sym.Size != 0 {
			if !validName(sym.Name) {
				return nil, fmt.Errorf("dwarf2btf: per-CPU symbol %q has a name BTF cannot hold", sym.Name)
			}
			if len(s.percpu) == maxPercpuVars {
				return nil, fmt.Errorf("dwarf2btf: more than %d per-CPU variables", maxPercpuVars)
			}
			addr := sym.Value
			if !o.rel {
				addr -= s.percpuBase
			}
			s.percpu = append(s.percpu, percpuVar{addr: addr, size: uint32(sym.Size), name: sym.Name})
		}
		if typ == elf.STT_FUNC && sym.Name != "" {
			s.funcs[sym.Name] = struct{}{}
		}
	}
	sort.SliceStable(s.percpu, func(i, j int) bool { return s.percpu[i].addr < s.percpu[j].addr })
	s.funcBits = newNameFilter(len(s.funcs))
	for name := range s.funcs {
		s.funcBits.add(name)
	}
	return s, nil
}

// newSymbols130 is what pahole 1.30 takes from the symbol table: the ELF
// functions (with kfuncs marked from .BTF_ids if kfuncs), the sections,
// and the per-CPU section's object names.
func newSymbols130(o *object, kfuncs *kfuncInfo) *symbols {
	s := &symbols{elf: &elfFuncs{}, secAddrs: o.addrs, secSizes: o.sizes, secTypes: o.types,
		percpuIdx: o.percpuIdx, percpuObjects: map[string]struct{}{}}
	if o.symtab == nil {
		return s
	}
	s.elf = newElfFuncs(o.symtab.all())
	if kfuncs != nil {
		s.elf.markKfuncs(kfuncs)
	}
	for _, sym := range o.symtab.all() {
		if o.percpuIdx != 0 && int(sym.Section) == o.percpuIdx && elf.ST_TYPE(sym.Info) == elf.STT_OBJECT {
			s.percpuObjects[sym.Name] = struct{}{}
		}
	}
	return s
}

// section is pahole 1.30's get_elf_section: the first PROGBITS or NOBITS
// section holding addr, 0 if none.
func (s *symbols) section(addr uint64) int {
	for i := 1; i < len(s.secAddrs); i++ {
		if s.secTypes[i] != elf.SHT_PROGBITS && s.secTypes[i] != elf.SHT_NOBITS {
			continue
		}
		if s.secAddrs[i] <= addr && addr-s.secAddrs[i] < s.secSizes[i] {
			return i
		}
	}
	return 0
}

// filteredVar is pahole 1.30's filter_variable_name.
func filteredVar(name []byte) bool {
	if len(name) == 0 || name[0] != '_' {
		return false
	}
	for _, p := range []string{"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_", "__func_stack_frame_non_standard_"} {
		if len(name) >= len(p) && string(name[:len(p)]) == p {
			return true
		}
	}
	return false
}

// emitVars130 is pahole 1.30's btf_encoder__encode_cu_variables for the
// per-CPU variables (the only section it includes without global_var).
func (e *emitter) emitVars130() error {
	s, cu := e.obj, e.cu
	if s.percpuIdx == 0 || e.opts.features&FeatureVar == 0 {
		return nil
	}
	force := e.opts.features&FeatureEncodeForce != 0
	for i := range cu.vars {
		v := &cu.vars[i]
		if v.decl && v.specIdx < 0 || !v.topLevel || v.artificial || v.scope != scopeGlobal {
			continue
		}
		shndx := s.section(v.addr)
		if shndx == 0 || shndx != s.percpuIdx {
			continue
		}
		addr := v.addr - s.secAddrs[shndx]
		if v.specIdx >= 0 {
			v = &cu.vars[v.specIdx]
		}
		if v.name == nil || filteredVar(v.name) {
			continue
		}
		if _, ok := s.percpuObjects[string(v.name)]; addr == 0 && !ok {
			continue
		}
		if !validName(string(v.name)) {
			if force {
				continue
			}
			return fmt.Errorf("dwarf2btf: variable %q has a name BTF cannot hold", v.name)
		}
		if v.typeID == 0 {
			if force {
				continue
			}
			return fmt.Errorf("dwarf2btf: variable %q has void type", v.name)
		}
		size := cu.size(v.typeID, 0)
		if size == 0 || size > 1<<32-1 || addr > 1<<32-1 {
			continue
		}
		e.addVar(v.name, v, uint32(addr), uint32(size))
	}
	return nil
}

// findPercpu finds the per-CPU symbol at a section offset.
func (s *symbols) findPercpu(addr uint64) (*percpuVar, bool) {
	i, ok := slices.BinarySearchFunc(s.percpu, addr, func(v percpuVar, a uint64) int {
		switch {
		case v.addr < a:
			return -1
		case v.addr > a:
			return 1
		}
		return 0
	})
	if !ok {
		return nil, false
	}
	return &s.percpu[i], true
}

// validName is pahole's btf_name_valid: an identifier (dots allowed) of at
// most 128 characters.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// addVar adds the per-CPU variable v, named name, at offset of the
// section, with its decl tags.
func (e *emitter) addVar(name []byte, v *variable, offset, size uint32) {
	linkage := btf.LinkageStatic
	if v.external {
		linkage = btf.LinkageGlobal
	}
	lo := int32(len(e.out.tags))
	e.addTags(0, v.annLo, v.annN)
	e.out.vars = append(e.out.vars, ovar{name: name, typ: uint32(v.typeID), linkage: linkage,
		offset: offset, size: size, tagLo: lo, tagN: int32(len(e.out.tags)) - lo})
}

// emitVars is btf_encoder__encode_cu_variables.
func (e *emitter) emitVars() error {
	s, cu := e.obj, e.cu
	if !s.hasPercpu || e.opts.SkipVars {
		return nil
	}
	for i := range cu.vars {
		v := &cu.vars[i]
		if v.decl && v.specIdx < 0 || v.scope != scopeGlobal && v.specIdx < 0 {
			continue
		}
		addr := v.addr
		if addr < s.percpuBase || addr >= s.percpuBase+s.percpuSize {
			continue
		}
		addr -= s.percpuBase
		sym, ok := s.findPercpu(addr)
		if !ok {
			continue
		}
		if v.addr == 0 && (v.name == nil || string(v.name) != sym.name) {
			continue
		}
		if v.specIdx >= 0 {
			v = &cu.vars[v.specIdx]
		}
		if v.typeID == 0 {
			return fmt.Errorf("dwarf2btf: variable %q has void type", sym.name)
		}
		if cu.size(v.typeID, 0) == 0 {
			continue
		}
		e.addVar([]byte(sym.name), v, uint32(addr), sym.size)
	}
	return nil
}
