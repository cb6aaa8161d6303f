package dwarf2btf

import (
	"fmt"
	"slices"
)

// recode resolves the unit's DIE references into local type ids, as
// pahole's cu__recode_dwarf_types and cu__resolve_func_ret_types do, and
// computes member bit offsets (class_member__cache_byte_size). The passes
// run in pahole's order because later ones overwrite what earlier ones set.
func (cu *cuData) recode(little bool) error {
	cu.idx.build()
	cu.recodeNames()
	for i := 1; i < cu.types.len(); i++ {
		cu.recodeType(i)
	}
	for i := range cu.params {
		cu.params[i].typeID = cu.findType(cu.params[i].typeRef)
	}
	for i := range cu.vars {
		v := &cu.vars[i]
		if v.hasSpec && v.spec != 0 {
			if j, ok := cu.lookup(v.spec, idxVar); ok {
				v.specIdx = int32(j)
			}
		}
		v.typeID = cu.findType(v.typeRef)
	}
	for i := range cu.funcs {
		cu.recodeFunc(i)
	}
	for i := range cu.funcs {
		f := &cu.funcs[i]
		f.unexpectedReg = cu.unexpectedReg(f)
		if f.typeID != 0 || !f.hasOrigin {
			continue
		}
		j, ok := cu.lookup(f.origin, idxFunc)
		if !ok {
			return fmt.Errorf("dwarf2btf: function at %#x: abstract origin %#x not found", f.origin, f.origin)
		}
		f.typeID = cu.funcs[j].typeID
	}
	// Each member's bit offset depends only on itself and the types, once
	// all are recoded. The members are the composites' (cu.members also
	// holds dead entries a run left behind: see elemRun).
	for i := 1; i < cu.types.len(); i++ {
		if t := cu.types.at(i); isComposite(t.tag) {
			for j := t.lo; j < t.lo+t.n; j++ {
				cu.cacheByteSize(&cu.members[j], little)
			}
		}
	}
	return nil
}

func isComposite(tag uint16) bool {
	switch tag {
	case dwTagStructureType, dwTagClassType, dwTagInterfaceType, dwTagUnionType:
		return true
	}
	return false
}

// findType is dwarf_cu__find_type_by_ref: the local id of the type DIE at
// off, 0 (void) when there is none. It is lookup's, with the index read
// inline: a call less on each of the unit's references, the most
// frequent lookup. Offset 0 (no DW_AT_type) is no DIE of the unit, whose
// header is there or before: the index holds nothing there.
func (cu *cuData) findType(off uint32) int32 {
	if v := cu.idx.get(off); v>>28 == idxType {
		return v - (idxType<<28 | 1) // its index
	}
	return 0
}

func (cu *cuData) recodeType(i int) {
	t := cu.types.at(i)
	target := t.typ // an offset; from here on t.typ is a local id
	t.typ = 0
	switch t.tag {
	case dwTagStructureType, dwTagClassType, dwTagInterfaceType, dwTagUnionType:
		for j := t.lo; j < t.lo+t.n; j++ {
			m := &cu.members[j]
			m.typ = uint32(cu.findType(m.typ))
		}
		return
	case dwTagEnumerationType:
		// pahole 1.24's type__init reads DW_AT_encoding from whatever
		// DIE DW_AT_type names, a type or not, so a base type retagged
		// into an enumerator still makes the enumeration signed.
		_, signed := slices.BinarySearch(cu.signedDIEs, target)
		t.set(typeSigned, target != 0 && signed)
		return
	case dwTagSubroutineType:
		cu.recodeParams(t.lo, t.n)
	case dwTagPointerType:
		if t.n > 0 {
			// A pointer with btf_type_tag annotations links its chain
			// PTR -> last tag -> ... -> first tag -> pointee only when
			// the pointee is absent (void) or found. pahole 1.24's
			// tag__recode_dwarf_type returns early when DW_AT_type
			// names no type DIE, so the pointer and every tag stay
			// void, unlinked (issue 37, encfuzz F6).
			pointee := cu.findType(target)
			if target != 0 && pointee == 0 {
				return
			}
			prev := i
			for j := t.lo + t.n - 1; j >= t.lo; j-- {
				cu.types.at(prev).typ = uint32(cu.chain[j])
				prev = int(cu.chain[j])
			}
			cu.types.at(prev).typ = uint32(pointee)
			return
		}
	}
	t.typ = uint32(cu.findType(target))
}

// recodeNames names the composites, typedefs and enumerations without a
// name after the type their DW_AT_specification gives, in id order, as
// pahole's recoding of each type does first.
func (cu *cuData) recodeNames() {
	for _, s := range cu.specs {
		t := cu.types.at(int(s.id))
		switch t.tag {
		case dwTagStructureType, dwTagClassType, dwTagInterfaceType, dwTagUnionType, dwTagTypedef, dwTagRvalueRefType, dwTagEnumerationType:
			if t.namep == nil {
				if j := cu.findType(s.spec); j != 0 {
					t.setName(cu.types.at(int(j)).name())
				}
			}
		}
	}
}

// recodeParams is ftype__recode_dwarf_types.
func (cu *cuData) recodeParams(lo, n int32) {
	for j := lo; j < lo+n; j++ {
		p := &cu.params[j]
		if p.typeRef != 0 {
			p.typeID = cu.findType(p.typeRef)
			continue
		}
		if p.origin == 0 {
			p.typeID = 0
			continue
		}
		if k, ok := cu.lookup(p.origin, idxParam); ok {
			p.namep, p.namen = cu.params[k].namep, cu.params[k].namen
			p.typeID = cu.params[k].typeID
			// pahole 1.30 shares the register finding with the
			// abstract origin.
			cu.params[k].unexpected = cu.params[k].unexpected || p.unexpected
		}
	}
}

func (cu *cuData) recodeFunc(i int) {
	f := &cu.funcs[i]
	if f.name == nil && (f.origin != 0 || f.spec != 0) {
		j, ok := cu.lookup(f.origin, idxFunc)
		if !ok {
			j, ok = cu.lookup(f.spec, idxFunc)
		}
		if ok {
			f.name = cu.funcs[j].name
		}
	}
	for _, vi := range cu.lexVars[f.lexLo : f.lexLo+f.lexN] {
		v := &cu.vars[vi]
		if v.typeRef != 0 || v.origin == 0 {
			continue
		}
		if k, ok := cu.lookup(v.origin, idxVar); ok {
			v.name = cu.vars[k].name
			v.typeID = cu.vars[k].typeID
		}
	}
	cu.recodeParams(f.lo, f.n)
	f.typeID = cu.findType(f.typeRef)
}

// cacheByteSize is pahole's class_member__cache_byte_size, as far as it
// decides a member's bit offset.
func (cu *cuData) cacheByteSize(m *member, little bool) {
	if m.is(memberIsMember) && m.is(memberStatic) || m.bitfield == 0 {
		return
	}
	size := uint64(m.byteSize)
	if size == 0 {
		size = cu.strippedSize(m.id())
	}
	if size == 0 {
		return
	}
	if m.is(memberDataBitOffset) {
		return
	}
	bitSize := int64(size * 8)
	bfo := m.dwBitOffset
	if little {
		bfo = int8(bitSize - int64(bfo) - int64(m.bitfield))
	}
	m.bitOffset = m.byteOffset*8 + uint32(int32(bfo))
}

// strippedSize is the byte size of a bitfield's type with typedefs and
// qualifiers removed, as class_member__cache_byte_size finds it.
func (cu *cuData) strippedSize(id int32) uint64 {
	for n := 0; id != 0 && n < cu.types.len(); n++ {
		t := cu.types.at(int(id))
		switch t.tag {
		case dwTagTypedef, dwTagConstType, dwTagVolatileType, dwTagRestrictType:
			id = t.id()
			continue
		case dwTagEnumerationType:
			return uint64(t.size) / 8
		case dwTagBaseType:
			return uint64(t.size) / 8
		}
		return cu.size(id, 0)
	}
	return 0
}

// size is pahole's tag__size for a local type id: 0 for void and
// incomplete types; ^0 when it cannot tell (a loop).
func (cu *cuData) size(id int32, depth int) uint64 {
	if id <= 0 || int(id) >= cu.types.len() || depth > 64 {
		return ^uint64(0)
	}
	t := cu.types.at(int(id))
	switch t.tag {
	case dwTagPointerType, dwTagReferenceType:
		return uint64(cu.addrSize)
	case dwTagBaseType:
		return uint64(t.size) / 8
	case dwTagEnumerationType:
		return uint64(t.size) / 8
	case dwTagStringType:
		return 1
	}
	if t.id() == 0 {
		if isComposite(t.tag) {
			if t.size == 1 && t.n == 0 {
				return 0
			}
			return uint64(t.size)
		}
		return uint64(t.size)
	}
	if t.id() == id {
		return ^uint64(0)
	}
	s := cu.size(t.id(), depth+1)
	if t.tag == dwTagArrayType {
		n := uint64(1)
		for _, d := range cu.dims[t.lo : t.lo+t.n] {
			n *= uint64(d)
		}
		return s * n
	}
	return s
}

// unexpectedReg is cu__resolve_func_ret_types_optimized's unexpected_reg:
// a parameter is in an unexpected register, and none is a struct (passed
// in several registers, which throws the mapping off).
func (cu *cuData) unexpectedReg(f *function) bool {
	ps := cu.params[f.lo : f.lo+f.n]
	found := false
	for i := range ps {
		found = found || ps[i].unexpected
	}
	if !found {
		return false
	}
	for i := range ps {
		if cu.isStruct(ps[i].typeID) {
			return false
		}
	}
	return true
}

// isStruct is pahole's param__is_struct: a struct, also behind typedefs
// and const.
func (cu *cuData) isStruct(id int32) bool {
	for n := 0; id > 0 && int(id) < cu.types.len() && n < 64; n++ {
		switch t := cu.types.at(int(id)); t.tag {
		case dwTagStructureType:
			return true
		case dwTagConstType, dwTagTypedef:
			id = t.id()
		default:
			return false
		}
	}
	return false
}
