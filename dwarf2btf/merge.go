package dwarf2btf

import (
	"fmt"
	"sort"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// merger appends encoded units, in unit order, to one Builder, carrying
// the state pahole's single encoder carries from one unit to the next:
// the array index type, the function names already emitted and the
// per-CPU variables of the DATASEC. Fed the units in order, it adds the
// same records in the same order as pahole -j1, whatever the number of
// workers that encoded them.
type merger struct {
	b         *builder.Builder
	hasIndex  bool
	needIndex bool
	indexID   btf.TypeID
	generated map[string]struct{}
	secinfo   []btf.VarSecinfo

	// flush, if not nil, takes the Builder's records after each unit and
	// at the end (see Dedup).
	flush func(*builder.Builder) error
	// intern, if not nil, adds a string to the deduplication's strings
	// (dedup.Merger.AddString), after flush has taken the records.
	intern func([]byte) error

	// pahole 1.30's: the ELF functions, the saved functions, and the
	// feature set; like130 tells that functions are saved.
	like130  bool
	elf      *elfFuncs
	saved    []savedFunc
	arena    savedArena
	features Features

	members []builder.Member
	params  []builder.Param
	values  []builder.Enumerator
}

// view returns b as a string without copying it, for the Builder's Add
// calls, which copy what they keep: the merge passes tens of millions of
// names (a vmlinux), and converting each cost a third of its time. The
// Builder keeps no string it was given; m.generated's keys are copies.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func newMerger(b *builder.Builder) *merger {
	return &merger{b: b, generated: map[string]struct{}{}}
}

func (m *merger) add(u *encoded) error {
	if u.skipped {
		return nil
	}
	off := m.b.LastID()
	if !m.hasIndex {
		if u.intID != 0 {
			m.hasIndex, m.indexID = true, off+btf.TypeID(u.intID)
		} else {
			m.indexID = off + btf.TypeID(u.ntypes) + 1
		}
	}
	for i := range u.types {
		if _, err := m.addRec(u, &u.types[i], off); err != nil {
			return err
		}
	}
	m.needIndex = m.needIndex || u.hasArrays
	if m.needIndex && !m.hasIndex {
		if _, err := m.b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
			return err
		}
		m.hasIndex = true
	}
	for _, t := range u.tags[:u.typeTagN] {
		if err := m.declTag(t, off+btf.TypeID(t.target)); err != nil {
			return err
		}
	}
	if m.like130 && len(u.funcs) > 0 {
		// The saved functions add strings before the variables'
		// records: hand over the records before them.
		if err := m.flushed(); err != nil {
			return err
		}
	}
	for i := range u.funcs {
		if m.like130 {
			if err := m.saveFunc(u, &u.funcs[i], off); err != nil {
				return err
			}
			continue
		}
		if err := m.addFunc(u, &u.funcs[i], off); err != nil {
			return err
		}
	}
	for i := range u.vars {
		v := &u.vars[i]
		id, err := m.b.AddVar(view(v.name), off+btf.TypeID(v.typ), v.linkage)
		if err != nil {
			return err
		}
		for _, t := range u.tags[v.tagLo : v.tagLo+v.tagN] {
			if err := m.declTag(t, id); err != nil {
				return err
			}
		}
		m.secinfo = append(m.secinfo, btf.VarSecinfo{Type: id, Offset: v.offset, Size: v.size})
	}
	return m.flushed()
}

func (m *merger) flushed() error {
	if m.flush == nil {
		return nil
	}
	return m.flush(m.b)
}

func (m *merger) declTag(t otag, target btf.TypeID) error {
	if len(t.value) == 0 {
		return fmt.Errorf("dwarf2btf: empty btf_decl_tag")
	}
	_, err := m.b.AddDeclTag(view(t.value), target, t.component, false)
	return err
}

func (m *merger) addFunc(u *encoded, f *ofunc, off btf.TypeID) error {
	if _, done := m.generated[string(f.name)]; done {
		return nil
	}
	m.generated[string(f.name)] = struct{}{}
	proto, err := m.addRec(u, &f.proto, off)
	if err != nil {
		return err
	}
	id, err := m.b.AddFunc(view(f.name), proto, btf.LinkageStatic)
	if err != nil {
		return err
	}
	for _, t := range u.tags[f.tagLo : f.tagLo+f.tagN] {
		if err := m.declTag(t, id); err != nil {
			return err
		}
	}
	return nil
}

// finish adds the per-CPU DATASEC, its variables sorted by offset.
func (m *merger) finish() error {
	if m.like130 {
		if err := m.addSaved(); err != nil {
			return err
		}
	}
	if len(m.secinfo) == 0 {
		return m.flushed()
	}
	sort.SliceStable(m.secinfo, func(i, j int) bool { return m.secinfo[i].Offset < m.secinfo[j].Offset })
	last := m.secinfo[len(m.secinfo)-1]
	if _, err := m.b.AddDatasec(percpuSection, last.Offset+last.Size, m.secinfo); err != nil {
		return err
	}
	return m.flushed()
}

func (m *merger) ref(local uint32, off btf.TypeID) btf.TypeID {
	switch local {
	case 0:
		return 0
	case refIndex:
		return m.indexID
	}
	return off + btf.TypeID(local)
}

func (m *merger) addRec(u *encoded, r *orec, off btf.TypeID) (btf.TypeID, error) {
	b := m.b
	name := view(r.name)
	elems := u.elems[r.lo : r.lo+r.n]
	switch r.kind {
	case btf.KindInt:
		return b.AddInt(name, r.a, btf.IntInfo{Encoding: uint8(r.b), Bits: uint8(r.a * 8)})
	case btf.KindFloat:
		return b.AddFloat(name, r.a)
	case btf.KindPointer:
		return b.AddPointer(m.ref(r.a, off))
	case btf.KindConst:
		return b.AddConst(m.ref(r.a, off))
	case btf.KindVolatile:
		return b.AddVolatile(m.ref(r.a, off))
	case btf.KindRestrict:
		return b.AddRestrict(m.ref(r.a, off))
	case btf.KindTypedef:
		return b.AddTypedef(name, m.ref(r.a, off))
	case btf.KindTypeTag:
		return b.AddTypeTag(name, m.ref(r.a, off), false)
	case btf.KindForward:
		return b.AddForward(name, r.flag)
	case btf.KindArray:
		return b.AddArray(btf.ArrayInfo{Type: m.ref(r.a, off), Index: m.ref(r.b, off), Nelems: r.c})
	case btf.KindStruct, btf.KindUnion:
		if _, err := b.AddString(name); err != nil {
			return 0, err
		}
		m.members = m.members[:0]
		for _, e := range elems {
			m.members = append(m.members, builder.Member{Name: view(e.name), Type: m.ref(e.ref, off), BitOffset: e.b, BitfieldSize: e.c})
		}
		if r.kind == btf.KindUnion {
			return b.AddUnion(name, r.a, m.members)
		}
		return b.AddStruct(name, r.a, m.members)
	case btf.KindEnum, btf.KindEnum64:
		if _, err := b.AddString(name); err != nil {
			return 0, err
		}
		m.values = m.values[:0]
		for _, e := range elems {
			m.values = append(m.values, builder.Enumerator{Name: view(e.name), Value: uint64(e.b)<<32 | uint64(e.ref)})
		}
		if r.kind == btf.KindEnum {
			for i := range m.values {
				m.values[i].Value &= 0xffffffff
			}
			return b.AddEnum(name, r.a, r.flag, m.values)
		}
		return b.AddEnum64(name, r.a, r.flag, m.values)
	case btf.KindFuncProto:
		m.params = m.params[:0]
		for _, e := range elems {
			m.params = append(m.params, builder.Param{Name: view(e.name), Type: m.ref(e.ref, off)})
		}
		return b.AddFuncProto(m.ref(r.a, off), m.params)
	}
	return 0, fmt.Errorf("dwarf2btf: cannot write kind %v", r.kind)
}
