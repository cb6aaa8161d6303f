package dwarf2btf

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// pahole 1.30 does not emit a function when it meets it: each unit saves
// the functions that match an ELF function (btf_encoder__save_func), and
// once every unit is encoded the saved ones are sorted by ELF function,
// those of one name compared, and emitted (btf_encoder__add_saved_funcs),
// after all the types and variables and before the DATASECs.

// emitFunc130 applies pahole 1.30's function filter and saves the
// function with the index of its ELF function.
func (e *emitter) emitFunc130(f *function) error {
	if f.decl {
		return nil
	}
	for _, p := range e.cu.params[f.lo : f.lo+f.n] {
		if p.namep == nil {
			return nil
		}
	}
	t := e.obj.elf
	if len(t.funcs) == 0 || f.name == nil {
		return nil
	}
	i, prefix := t.find(f.name, 0), false
	if i < 0 && t.suffixCnt > 0 && e.opts.features&FeatureOptimizedFunc != 0 {
		i = t.find(f.name, len(f.name))
		prefix = i >= 0
	}
	if i < 0 {
		return nil
	}
	p, err := e.proto(uint32(f.typeID), f.lo, f.n, f.unspec)
	if err != nil {
		return err
	}
	lo := int32(len(e.out.tags))
	if e.opts.features&FeatureDeclTag != 0 {
		e.addTags(0, f.annLo, f.annN)
	}
	sigLo := int32(len(e.out.sigs))
	e.out.sigs = binary.AppendUvarint(e.out.sigs, uint64(p.n))
	e.out.sigs = e.sig(e.out.sigs, p.a)
	for _, el := range e.out.elems[p.lo : p.lo+p.n] {
		e.out.sigs = e.sig(e.out.sigs, el.ref)
	}
	e.out.funcs = append(e.out.funcs, ofunc{name: f.name, proto: p, tagLo: lo, tagN: int32(len(e.out.tags)) - lo,
		elf: int32(i), prefix: prefix, unexpected: f.unexpectedReg,
		sigLo: sigLo, sigN: int32(len(e.out.sigs)) - sigLo})
	return nil
}

// sig appends a description of the type with local id id such that two
// types have equal descriptions when pahole 1.30's types__match finds them
// equal: names for named types (a FWD as the struct or union it
// declares), sizes and encodings for numbers, element counts for arrays,
// and the return type and parameter count of prototypes; CONSTs do not
// count unless they stand right before void. The unit's records are in
// e.out.types, local id i at index i-1. A chain longer than 256 (only a
// cycle is) ends in '?'.
func (e *emitter) sig(b []byte, id uint32) []byte {
	consts := 0
	for range 256 {
		if id == 0 {
			for range consts {
				b = append(b, 'C')
			}
			return append(b, 'v')
		}
		if id == refIndex || int(id) > len(e.out.types) {
			return append(b, '?')
		}
		r := &e.out.types[id-1]
		if r.kind == btf.KindConst {
			consts++
			id = r.a
			continue
		}
		consts = 0
		switch r.kind {
		case btf.KindInt:
			b = append(b, 'I', byte(r.a), byte(r.b))
			return appendName(b, r.name)
		case btf.KindFloat:
			b = append(b, 'f', byte(r.a))
			return appendName(b, r.name)
		case btf.KindTypedef:
			return appendName(append(b, 'T'), r.name)
		case btf.KindStruct:
			return appendName(append(b, 'S'), r.name)
		case btf.KindUnion:
			return appendName(append(b, 'U'), r.name)
		case btf.KindForward:
			if r.flag {
				return appendName(append(b, 'U'), r.name)
			}
			return appendName(append(b, 'S'), r.name)
		case btf.KindEnum:
			return appendName(append(b, 'E'), r.name)
		case btf.KindEnum64:
			return appendName(append(b, 'e'), r.name)
		case btf.KindPointer, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			b = append(b, byte('0'+r.kind))
			id = r.a
		case btf.KindArray:
			b = binary.AppendUvarint(append(b, 'A'), uint64(r.c))
			id = r.a
		case btf.KindFuncProto:
			// types__match compares the return type, and, by a slip
			// in its loop, the return type again for each parameter.
			// Followed in this loop, not by recursion, so that a
			// prototype that returns itself (a DWARF cycle) ends at
			// the bound.
			b = binary.AppendUvarint(append(b, 'F'), uint64(r.n))
			id = r.a
		default:
			return append(b, '?')
		}
	}
	return append(b, '?')
}

func appendName(b, name []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(name)))
	return append(b, name...)
}

// savedFunc is pahole 1.30's btf_encoder_func_state. Its parameters,
// tags and description live in the merger's arenas (savedArena): a
// vmlinux saves some 60,000 functions until the end of the encoding,
// when memory peaks, and one allocation per name would cost twice the
// memory.
type savedFunc struct {
	elf          int32
	prefix       bool
	unexpected   bool
	inconsistent bool
	ret          btf.TypeID
	pLo, pN      int32 // in arena.params
	tLo, tN      int32 // in arena.tags
	sigLo, sigN  uint32
}

// savedArena holds the saved functions' variable parts.
type savedArena struct {
	bytes  []byte // names, tag values and descriptions
	params []savedParam
	tags   []savedTag
	// str is .debug_str, if the strings' views of it stay valid through
	// the merge: the names in it are kept as views (putName), which the
	// NameCache of the Unit that writes them knows (dedup.NameCache).
	str []byte
}

type savedParam struct {
	nameLo, nameN uint32 // in bytes
	typ           btf.TypeID
}

type savedTag struct {
	valLo, valN uint32
	component   int32
}

func (a *savedArena) put(b []byte) (uint32, uint32) {
	lo := uint32(len(a.bytes))
	a.bytes = append(a.bytes, b...)
	return lo, uint32(len(b))
}

func (a *savedArena) get(lo, n uint32) []byte {
	if lo&inStr != 0 {
		lo &^= inStr
		return a.str[lo : lo+n]
	}
	return a.bytes[lo : lo+n]
}

// inStr marks a string of get that is a view of str.
const inStr = 1 << 31

// putName is put for a string that may be a view of str: kept as such.
func (a *savedArena) putName(b []byte) (uint32, uint32) {
	if len(b) > 0 && len(a.str) > 0 {
		off := uintptr(unsafe.Pointer(&b[0])) - uintptr(unsafe.Pointer(&a.str[0]))
		if off < uintptr(len(a.str)) && uintptr(len(b)) <= uintptr(len(a.str))-off && off < inStr {
			return uint32(off) | inStr, uint32(len(b))
		}
	}
	return a.put(b)
}

// saveFunc keeps a unit's function for addSaved, its types numbered. As
// pahole, it adds the parameters' names and the annotations to the string
// table now: the strings' order shows in the output.
func (m *merger) saveFunc(u *encoded, f *ofunc, off btf.TypeID) error {
	a := &m.arena
	s := savedFunc{elf: f.elf, prefix: f.prefix, unexpected: f.unexpected, ret: m.ref(f.proto.a, off)}
	s.sigLo, s.sigN = a.put(u.sigs[f.sigLo : f.sigLo+f.sigN])
	s.pLo = int32(len(a.params))
	for i, el := range u.elems[f.proto.lo : f.proto.lo+f.proto.n] {
		if i < int(f.proto.n)-1 || el.ref != 0 || len(el.name) != 0 {
			// Not the "..." of a variadic function.
			if err := m.addString(el.name); err != nil {
				return err
			}
		}
		lo, n := a.putName(el.name)
		a.params = append(a.params, savedParam{nameLo: lo, nameN: n, typ: m.ref(el.ref, off)})
	}
	s.pN = int32(len(a.params)) - s.pLo
	s.tLo = int32(len(a.tags))
	for _, t := range u.tags[f.tagLo : f.tagLo+f.tagN] {
		if err := m.addString(t.value); err != nil {
			return err
		}
		lo, n := a.putName(t.value)
		a.tags = append(a.tags, savedTag{valLo: lo, valN: n, component: t.component})
	}
	s.tN = int32(len(a.tags)) - s.tLo
	m.saved = append(m.saved, s)
	return nil
}

// addSaved is btf_encoder__add_saved_funcs.
func (m *merger) addSaved() error {
	t := m.elf
	fs := m.saved
	order := msort(len(fs), func(i, j int) int { return functionsCmp(&t.funcs[fs[i].elf], &t.funcs[fs[j].elf]) })
	// An ELF function matched by its prefix (foo.isra.0 for foo) is
	// emitted under the prefix, pahole's alias.
	alias := make(map[int32]bool)
	for i := range fs {
		if fs[i].prefix {
			alias[fs[i].elf] = true
		}
	}
	for i := 0; i < len(order); {
		a := &fs[order[i]]
		j := i + 1
		for ; j < len(order); j++ {
			b := &fs[order[j]]
			ea, eb := &t.funcs[a.elf], &t.funcs[b.elf]
			if strncmp(ea.name, eb.name, max(ea.prefixLen, eb.prefixLen)) != 0 {
				break
			}
			unexpected := a.unexpected || b.unexpected
			inconsistent := a.inconsistent || b.inconsistent
			if !unexpected && !inconsistent && !bytes.Equal(m.arena.get(a.sigLo, a.sigN), m.arena.get(b.sigLo, b.sigN)) {
				inconsistent = true
			}
			a.unexpected, b.unexpected = unexpected, unexpected
			a.inconsistent, b.inconsistent = inconsistent, inconsistent
		}
		keep := m.features&FeatureConsistentFunc == 0 || !a.unexpected && !a.inconsistent
		if keep {
			if err := m.addSavedFunc(a, alias[a.elf]); err != nil {
				return err
			}
		}
		i = j
	}
	m.saved, m.arena = nil, savedArena{str: m.arena.str}
	return nil
}

// addSavedFunc is btf_encoder__add_func.
func (m *merger) addSavedFunc(s *savedFunc, alias bool) error {
	ef := &m.elf.funcs[s.elf]
	name := ef.name
	if alias {
		name = name[:ef.prefixLen]
	}
	a := &m.arena
	m.params = m.params[:0]
	for _, p := range a.params[s.pLo : s.pLo+s.pN] {
		m.params = append(m.params, builder.Param{Name: view(a.get(p.nameLo, p.nameN)), Type: p.typ})
	}
	proto, err := m.b.AddFuncProto(s.ret, m.params)
	if err != nil {
		return err
	}
	id, err := m.b.AddFunc(name, proto, btf.LinkageStatic)
	if err != nil {
		return err
	}
	if ef.kfunc && m.features&FeatureDeclTagKfuncs != 0 && m.features&FeatureDeclTag != 0 {
		if _, err := m.b.AddDeclTag("bpf_kfunc", id, -1, false); err != nil {
			return err
		}
		if ef.flags&kfFastcall != 0 {
			if _, err := m.b.AddDeclTag("bpf_fastcall", id, -1, false); err != nil {
				return err
			}
		}
	}
	for _, t := range a.tags[s.tLo : s.tLo+s.tN] {
		if err := m.declTag(otag{value: a.get(t.valLo, t.valN), component: t.component}, id); err != nil {
			return err
		}
	}
	return nil
}

// addString adds s to the strings: to the deduplication's (intern) once
// the records before it are handed over, or to the Builder's.
func (m *merger) addString(s []byte) error {
	if m.intern != nil {
		return m.intern(s)
	}
	_, err := m.b.AddString(view(s))
	return err
}
