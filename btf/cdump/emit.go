package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
)

// emitType prints the definition of type id, preceded by the forward
// declarations and definitions it needs that are not printed yet, as
// libbpf's btf_dump_emit_type does. contID is the struct or union whose
// definition is being prepared (0 at top level): a member that refers back
// to it needs no forward declaration.
func (d *dumper) emitType(id, contID btf.TypeID) {
	st := d.state(id)
	if st.emit == emitted || d.err != nil || !d.step(id) {
		return
	}
	if d.depth > maxDepth {
		d.failDeep(id, "types nest too deep")
		return
	}
	d.depth++
	d.emitTypeAt(id, contID, st)
	d.depth--
}

// emitTypeAt is emitType for a type not yet emitted.
func (d *dumper) emitTypeAt(id, contID btf.TypeID, st *tstate) {
	t := d.typ(id)
	if st.emit == emitting {
		d.emitFwdForLoop(id, contID, t, st)
		return
	}
	switch t.kind() {
	case btf.KindInt:
		d.emitMissingAlias(id)
		st.emit = emitted
	case btf.KindEnum, btf.KindEnum64:
		if contID == 0 {
			d.emitEnumDef(id, t, 0)
			d.o.str(";\n\n")
		}
		st.emit = emitted
	case btf.KindPointer, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		d.emitType(t.ref(), contID)
	case btf.KindArray:
		d.emitType(t.arrayElem(), contID)
	case btf.KindForward:
		d.emitFwdDef(id, t)
		d.o.str(";\n\n")
		st.emit = emitted
	case btf.KindTypedef:
		st.emit = emitting
		d.emitType(t.ref(), id)
		// Someone may have needed the typedef while its target was being
		// emitted (through a pointer) and printed it already.
		if st.flags&fwdEmitted == 0 && !d.isBuiltin(t) {
			d.emitTypedefDef(id, t, 0)
			d.o.str(";\n\n")
		}
		st.emit = emitted
	case btf.KindStruct, btf.KindUnion:
		d.emitComposite(id, contID, t, st)
	case btf.KindFuncProto:
		d.emitType(t.ref(), contID)
		for i := range t.vlen() {
			_, pt := t.param(i)
			d.emitType(pt, contID)
		}
	}
}

// emitFwdForLoop handles a type met again while it is being emitted: a
// struct or union then needs a forward declaration, unless it is the one
// being defined; a typedef is printed early, for use through pointers.
func (d *dumper) emitFwdForLoop(id, contID btf.TypeID, t rec, st *tstate) {
	if st.flags&fwdEmitted != 0 {
		return
	}
	switch t.kind() {
	case btf.KindStruct, btf.KindUnion:
		if id == contID || t.nameOff() == 0 {
			// Referring to itself needs nothing; an anonymous loop cannot
			// be broken (libbpf warns and goes on).
			return
		}
		d.emitStructFwd(id, t)
		d.o.str(";\n\n")
		st.flags |= fwdEmitted
	case btf.KindTypedef:
		if !d.isBuiltin(t) {
			d.emitTypedefDef(id, t, 0)
			d.o.str(";\n\n")
		}
		st.flags |= fwdEmitted
	}
}

// emitComposite emits a struct or union. At top level, or when anonymous
// (and so defined inline), its members' types are emitted first; a named
// one met below top level only needs a forward declaration.
func (d *dumper) emitComposite(id, contID btf.TypeID, t rec, st *tstate) {
	st.emit = emitting
	topLevel := contID == 0
	named := t.nameOff() != 0
	if topLevel || !named {
		inner := id
		if !named {
			inner = contID
		}
		for i := range t.vlen() {
			d.emitType(t.memberType(i), inner)
		}
	} else if st.flags&fwdEmitted == 0 && id != contID {
		d.emitStructFwd(id, t)
		d.o.str(";\n\n")
		st.flags |= fwdEmitted
	}
	if topLevel {
		d.emitStructDef(id, t, 0)
		d.o.str(";\n\n")
		st.emit = emitted
	} else {
		st.emit = notEmitted
	}
}

// isBuiltin reports whether t is __builtin_va_list, which the compiler
// defines itself and which must not be redefined (libbpf's
// btf_dump_is_blacklisted).
func (d *dumper) isBuiltin(t rec) bool {
	return t.nameOff() != 0 && string(d.name(t)) == "__builtin_va_list"
}

// missingAliases are base types that GCC refers to through typedefs of its
// internal __PolyN_t types (Arm SIMD) and that clang lacks.
var missingAliases = [][2]string{
	{"__Poly8_t", "unsigned char"},
	{"__Poly16_t", "unsigned short"},
	{"__Poly64_t", "unsigned long long"},
	{"__Poly128_t", "unsigned __int128"},
}

// emitMissingAlias prints a typedef for an INT that clang does not know
// (libbpf's btf_dump_emit_missing_aliases). Like libbpf, it resolves the
// INT's name among the tag names, which counts it there.
func (d *dumper) emitMissingAlias(id btf.TypeID) {
	name := d.typeName(id)
	for _, a := range missingAliases {
		if string(name) == a[0] {
			d.o.str("typedef ")
			d.o.str(a[1])
			d.o.byte(' ')
			d.o.bytes(name)
			d.o.str(";\n\n")
			return
		}
	}
}

// emitTypedefDef prints "typedef <decl> name" (libbpf's
// btf_dump_emit_typedef_def).
func (d *dumper) emitTypedefDef(id btf.TypeID, t rec, lvl int) {
	name := d.identName(id)
	if t.ref() == 0 && string(name) == "__gnuc_va_list" {
		// Old GCCs describe __gnuc_va_list as a typedef of void.
		d.o.str("typedef __builtin_va_list __gnuc_va_list")
		return
	}
	d.o.str("typedef ")
	d.emitTypeDecl(t.ref(), name, lvl)
}

// emitStructFwd prints "struct name" or "union name".
func (d *dumper) emitStructFwd(id btf.TypeID, t rec) {
	if t.kind() == btf.KindStruct {
		d.o.str("struct")
	} else {
		d.o.str("union")
	}
	if t.nameOff() != 0 {
		d.o.byte(' ')
	}
	d.o.bytes(d.typeName(id))
}

// emitFwdDef prints a FWD as "struct name" or "union name".
func (d *dumper) emitFwdDef(id btf.TypeID, t rec) {
	name := d.typeName(id)
	if t.kflag() {
		d.o.str("union ")
	} else {
		d.o.str("struct ")
	}
	d.o.bytes(name)
}
