package cdump

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
)

// order appends to d.queue, in an order that C accepts, the named types
// that must be defined for type id to be defined (a topological sort, as in
// libbpf's btf_dump_order_type).
//
// A link from X to Y is weak if Y may be only forward declared where X is
// defined: the path goes through a pointer and reaches a named type. It is
// strong if Y must be complete first: Y is embedded, or it is anonymous and
// so defined inline. order reports whether the link to id is strong. Only
// types that can stand as independent definitions (structs, unions, enums,
// typedefs, forward declarations) are queued; pointers, arrays, prototypes
// and qualifiers are paths to them. A strong cycle is an error.
func (d *dumper) order(id btf.TypeID, throughPtr bool, depth int) (strong bool, err error) {
	st := d.state(id)
	if st.order == ordered {
		// Also for types first seen as weak: a typedef to them may be
		// defined right away.
		return true, nil
	}
	if depth > maxDepth {
		return false, d.deepError(id, "types nest too deep")
	}
	if !d.step(id) {
		return false, d.err
	}
	t := d.typ(id)
	if st.order == ordering {
		if t.isComposite() && throughPtr && t.nameOff() != 0 {
			return false, nil // a loop broken by a forward declaration
		}
		return false, fmt.Errorf("cdump: %s: %w", d.describe(id), ErrTypeCycle)
	}
	depth++
	switch t.kind() {
	case btf.KindInt, btf.KindFloat:
		st.order = ordered
		return false, nil
	case btf.KindPointer:
		strong, err = d.order(t.ref(), true, depth)
		st.order = ordered
		return strong, err
	case btf.KindArray:
		return d.order(t.arrayElem(), false, depth)
	case btf.KindStruct, btf.KindUnion:
		return d.orderComposite(id, t, st, throughPtr, depth)
	case btf.KindEnum, btf.KindEnum64, btf.KindForward:
		// Named enums and forward declarations are top-level declarations;
		// so is an anonymous enum that nothing refers to (a set of
		// constants).
		if t.nameOff() != 0 || st.flags&referenced == 0 {
			d.queue = append(d.queue, id)
		}
		st.order = ordered
		return true, nil
	case btf.KindTypedef:
		strong, err = d.order(t.ref(), throughPtr, depth)
		if err != nil {
			return false, err
		}
		if throughPtr && !strong {
			return false, nil // like a struct, may stay undefined for now
		}
		d.queue = append(d.queue, id)
		st.order = ordered
		return true, nil
	case btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		return d.order(t.ref(), throughPtr, depth)
	case btf.KindFuncProto:
		return d.orderProto(t, throughPtr, depth)
	case btf.KindFunc, btf.KindVar, btf.KindDatasec, btf.KindDeclTag:
		st.order = ordered
		return false, nil
	}
	return false, fmt.Errorf("cdump: %s: unsupported kind %v", d.describe(id), t.kind())
}

// orderComposite orders a struct or union: unless it is named and reached
// through a pointer, its members come first and it is a strong link.
func (d *dumper) orderComposite(id btf.TypeID, t rec, st *tstate, throughPtr bool, depth int) (bool, error) {
	named := t.nameOff() != 0
	if throughPtr && named {
		return false, nil
	}
	st.order = ordering
	for i := range t.vlen() {
		if _, err := d.order(t.memberType(i), false, depth); err != nil {
			return false, err
		}
	}
	if named {
		d.queue = append(d.queue, id)
	}
	st.order = ordered
	return true, nil
}

// orderProto orders a prototype's return and parameter types; the link is
// strong if any of theirs is.
func (d *dumper) orderProto(t rec, throughPtr bool, depth int) (bool, error) {
	strong, err := d.order(t.ref(), throughPtr, depth)
	if err != nil {
		return false, err
	}
	for i := range t.vlen() {
		_, pt := t.param(i)
		s, err := d.order(pt, throughPtr, depth)
		if err != nil {
			return false, err
		}
		strong = strong || s
	}
	return strong, nil
}
