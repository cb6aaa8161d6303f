package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
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
	switch t.Kind() {
	case wire.KindInt:
		d.emitMissingAlias(id)
		st.emit = emitted
	case wire.KindEnum, wire.KindEnum64:
		if contID == 0 {
			d.emitEnumDef(id, t, 0)
			d.o.str(";\n\n")
		}
		st.emit = emitted
	case wire.KindPointer, wire.KindVolatile, wire.KindConst, wire.KindRestrict, wire.KindTypeTag:
		d.emitType(btf.TypeID(t.SizeType()), contID)
	case wire.KindArray:
		elem, _, _ := t.Array()
		d.emitType(btf.TypeID(elem), contID)
	case wire.KindForward:
		d.emitFwdDef(id, t)
		d.o.str(";\n\n")
		st.emit = emitted
	case wire.KindTypedef:
		st.emit = emitting
		d.emitType(btf.TypeID(t.SizeType()), id)
		// Someone may have needed the typedef while its target was being
		// emitted (through a pointer) and printed it already.
		if st.flags&fwdEmitted == 0 && !d.isBuiltin(t) {
			d.emitTypedefDef(id, t, 0)
			d.o.str(";\n\n")
		}
		st.emit = emitted
	case wire.KindStruct, wire.KindUnion:
		d.emitComposite(id, contID, t, st)
	case wire.KindFuncProto:
		d.emitType(btf.TypeID(t.SizeType()), contID)
		for i := range t.Vlen() {
			d.emitType(btf.TypeID(t.ParamType(i)), contID)
		}
	}
}

// emitFwdForLoop handles a type met again while it is being emitted: a
// struct or union then needs a forward declaration, unless it is the one
// being defined; a typedef is printed early, for use through pointers.
func (d *dumper) emitFwdForLoop(id, contID btf.TypeID, t wire.Record, st *tstate) {
	if st.flags&fwdEmitted != 0 {
		return
	}
	switch t.Kind() {
	case wire.KindStruct, wire.KindUnion:
		if id == contID || t.NameOff() == 0 {
			// Referring to itself needs nothing; an anonymous loop cannot
			// be broken (libbpf warns and goes on).
			return
		}
		d.emitStructFwd(id, t)
		d.o.str(";\n\n")
		st.flags |= fwdEmitted
	case wire.KindTypedef:
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
func (d *dumper) emitComposite(id, contID btf.TypeID, t wire.Record, st *tstate) {
	st.emit = emitting
	topLevel := contID == 0
	named := t.NameOff() != 0
	if topLevel || !named {
		inner := id
		if !named {
			inner = contID
		}
		for i := range t.Vlen() {
			d.emitType(btf.TypeID(t.MemberType(i)), inner)
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
func (d *dumper) isBuiltin(t wire.Record) bool {
	return t.NameOff() != 0 && string(d.name(t)) == "__builtin_va_list"
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
func (d *dumper) emitTypedefDef(id btf.TypeID, t wire.Record, lvl int) {
	name := d.identName(id)
	if btf.TypeID(t.SizeType()) == 0 && string(name) == "__gnuc_va_list" {
		// Old GCCs describe __gnuc_va_list as a typedef of void.
		d.o.str("typedef __builtin_va_list __gnuc_va_list")
		return
	}
	d.o.str("typedef ")
	d.emitTypeDecl(btf.TypeID(t.SizeType()), name, lvl)
}

// emitStructFwd prints "struct name" or "union name".
func (d *dumper) emitStructFwd(id btf.TypeID, t wire.Record) {
	if t.Kind() == wire.KindStruct {
		d.o.str("struct")
	} else {
		d.o.str("union")
	}
	if t.NameOff() != 0 {
		d.o.byte(' ')
	}
	d.o.bytes(d.typeName(id))
}

// emitFwdDef prints a FWD as "struct name" or "union name".
func (d *dumper) emitFwdDef(id btf.TypeID, t wire.Record) {
	name := d.typeName(id)
	if t.KindFlag() {
		d.o.str("union ")
	} else {
		d.o.str("struct ")
	}
	d.o.bytes(name)
}
