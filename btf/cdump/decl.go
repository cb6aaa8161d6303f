package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// frame is one declaration chain on the shared stack d.decls: the ids at
// d.decls[start:start+n], the innermost type (int, struct, ...) on top.
// Printing pops from the top; nested declarations (parameters, members of
// inline structs) push their own frames above it.
type frame struct {
	start, n int
}

// top returns the id on top of f.
func (d *dumper) top(f *frame) btf.TypeID { return d.decls[f.start+f.n-1] }

// emitTypeDecl prints a declaration of fname with type id, as in a struct
// member, a parameter or a typedef (libbpf's btf_dump_emit_type_decl).
//
// In BTF, qualifiers and pointers come before what they qualify or point
// to; C writes const and volatile to the left of a base type but to the right
// of a "*", and wraps array and function declarators around the name. So the
// chain from id down to its base type is pushed on a stack, then printed from
// the base type up by emitTypeChain.
func (d *dumper) emitTypeDecl(id btf.TypeID, fname []byte, lvl int) {
	if !d.step(id) {
		return
	}
	if d.depth > maxDepth {
		d.failDeep(id, "declaration nests too deep")
		return
	}
	d.depth++
	start := len(d.decls)
chain:
	for n := 0; ; n++ {
		if n > maxDepth {
			d.failDeep(id, "declaration chain too long")
			d.decls = d.decls[:start]
			d.depth--
			return
		}
		d.decls = append(d.decls, id)
		if id == 0 {
			break
		}
		t := d.typ(id)
		switch t.Kind() {
		case wire.KindPointer, wire.KindVolatile, wire.KindConst, wire.KindRestrict,
			wire.KindFuncProto, wire.KindTypeTag:
			id = btf.TypeID(t.SizeType())
		case wire.KindArray:
			elem, _, _ := t.Array()
			id = btf.TypeID(elem)
		default:
			// A base type ends the chain; so does an unexpected kind, which
			// emitTypeChain then leaves out, as libbpf does.
			break chain
		}
	}
	f := frame{start: start, n: len(d.decls) - start}
	d.emitTypeChain(&f, fname, lvl)
	d.decls = d.decls[:start]
	d.depth--
}

// emitTypeChain prints the declaration chain f for fname (libbpf's
// btf_dump_emit_type_chain).
func (d *dumper) emitTypeChain(f *frame, fname []byte, lvl int) {
	// lastWasPtr avoids a space between consecutive "*" ("int ***"), and
	// before the "*" of a lone pointer in "(*name)".
	lastWasPtr := true
	for f.n > 0 && d.err == nil {
		f.n--
		id := d.decls[f.start+f.n]
		if id == 0 {
			d.emitMods(f)
			d.o.str("void")
			lastWasPtr = false
			continue
		}
		t := d.typ(id)
		kind := t.Kind()
		switch kind {
		case wire.KindInt, wire.KindFloat:
			d.emitMods(f)
			d.o.bytes(d.name(t))
		case wire.KindStruct, wire.KindUnion:
			d.emitMods(f)
			switch {
			case t.NameOff() == 0 && d.plain:
				d.emitStructFwd(id, t)
				d.o.str(" {...}")
			case t.NameOff() == 0:
				d.emitStructDef(id, t, lvl) // anonymous: defined inline
			default:
				d.emitStructFwd(id, t)
			}
		case wire.KindEnum, wire.KindEnum64:
			d.emitMods(f)
			switch {
			case t.NameOff() == 0 && d.plain:
				d.o.str("enum {...}")
			case t.NameOff() == 0:
				d.emitEnumDef(id, t, lvl)
			default:
				d.o.str("enum ")
				d.o.bytes(d.typeName(id))
			}
		case wire.KindForward:
			d.emitMods(f)
			d.emitFwdDef(id, t)
		case wire.KindTypedef:
			d.emitMods(f)
			d.o.bytes(d.identName(id))
		case wire.KindPointer:
			if lastWasPtr {
				d.o.byte('*')
			} else {
				d.o.str(" *")
			}
		case wire.KindVolatile:
			d.o.str(" volatile")
		case wire.KindConst:
			d.o.str(" const")
		case wire.KindRestrict:
			d.o.str(" restrict")
		case wire.KindTypeTag:
			d.emitMods(f)
			d.o.str(` __attribute__((btf_type_tag("`)
			d.o.bytes(d.name(t))
			d.o.str(`")))`)
		case wire.KindArray:
			d.emitArray(f, t, fname, lastWasPtr, lvl)
			return
		case wire.KindFuncProto:
			d.emitProto(f, t, fname, lastWasPtr, lvl)
			return
		default:
			return // libbpf warns about the unexpected kind and stops
		}
		lastWasPtr = kind == wire.KindPointer
	}
	d.emitName(fname, lastWasPtr)
}

// emitArray prints an array declarator: "name[n]", or "(*name)[n]" around
// what remains of the chain, without parentheses for arrays of arrays.
func (d *dumper) emitArray(f *frame, t wire.Record, fname []byte, lastWasPtr bool, lvl int) {
	_, _, nelems := t.Array()
	// GCC gives arrays the qualifiers of their elements; they mean nothing
	// for an array and are dropped.
	d.dropMods(f)
	if f.n == 0 {
		d.emitName(fname, lastWasPtr)
	} else {
		multidim := d.typ(d.top(f)).Kind() == wire.KindArray
		if len(fname) > 0 && !lastWasPtr {
			d.o.byte(' ')
		}
		if !multidim {
			d.o.byte('(')
		}
		d.emitTypeChain(f, fname, lvl)
		if !multidim {
			d.o.byte(')')
		}
	}
	d.o.byte('[')
	d.o.uint(uint64(nelems))
	d.o.byte(']')
}

// emitProto prints a function declarator: the rest of the chain (usually
// "(*name)") and the parameter list.
func (d *dumper) emitProto(f *frame, t wire.Record, fname []byte, lastWasPtr bool, lvl int) {
	// GCC marks pointers to noreturn functions volatile; dropped.
	d.dropMods(f)
	if f.n > 0 {
		d.o.str(" (")
		d.emitTypeChain(f, fname, lvl)
		d.o.byte(')')
	} else {
		d.emitName(fname, lastWasPtr)
	}
	d.o.byte('(')
	vlen := t.Vlen()
	// No parameters, or clang's single void parameter for none: "(void)".
	// (libbpf 1.1 printed "()"; Debian's bpftool 7.1 carries the later fix,
	// libbpf commit 205e86de "Fix no-args func prototype BTF dumping
	// syntax".)
	if vlen == 0 || (vlen == 1 && t.ParamType(0) == 0) {
		d.o.str("void)")
		return
	}
	for i := range vlen {
		if i > 0 {
			d.o.str(", ")
		}
		pname, ptype := t.Param(i)
		if i == vlen-1 && ptype == 0 {
			d.o.str("...")
			break
		}
		d.emitTypeDecl(btf.TypeID(ptype), d.strs.name(pname), lvl)
	}
	d.o.byte(')')
}

// emitMods prints the const, volatile and restrict on top of f before a base
// type: "const volatile int".
func (d *dumper) emitMods(f *frame) {
	for f.n > 0 {
		switch d.typ(d.top(f)).Kind() {
		case wire.KindVolatile:
			d.o.str("volatile ")
		case wire.KindConst:
			d.o.str("const ")
		case wire.KindRestrict:
			d.o.str("restrict ")
		default:
			return
		}
		f.n--
	}
}

// dropMods pops the qualifiers (and type tags) on top of f.
func (d *dumper) dropMods(f *frame) {
	for f.n > 0 {
		switch d.typ(d.top(f)).Kind() {
		case wire.KindVolatile, wire.KindConst, wire.KindRestrict, wire.KindTypeTag:
			f.n--
		default:
			return
		}
	}
}

// emitName prints the declared name, after a space unless it follows "*".
func (d *dumper) emitName(name []byte, lastWasPtr bool) {
	if len(name) > 0 && !lastWasPtr {
		d.o.byte(' ')
	}
	d.o.bytes(name)
}
