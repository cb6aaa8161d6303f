package cdump

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
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
		if k := t.Kind(); (k == wire.KindStruct || k == wire.KindUnion) && throughPtr && t.NameOff() != 0 {
			return false, nil // a loop broken by a forward declaration
		}
		return false, d.cycleError(id)
	}
	depth++
	switch t.Kind() {
	case wire.KindInt, wire.KindFloat:
		st.order = ordered
		return false, nil
	case wire.KindPointer:
		strong, err = d.order(btf.TypeID(t.SizeType()), true, depth)
		st.order = ordered
		return strong, err
	case wire.KindArray:
		elem, _, _ := t.Array()
		return d.order(btf.TypeID(elem), false, depth)
	case wire.KindStruct, wire.KindUnion:
		return d.orderComposite(id, t, st, throughPtr, depth)
	case wire.KindEnum, wire.KindEnum64, wire.KindForward:
		// Named enums and forward declarations are top-level declarations;
		// so is an anonymous enum that nothing refers to (a set of
		// constants).
		if t.NameOff() != 0 || st.flags&referenced == 0 {
			d.queue = append(d.queue, id)
		}
		st.order = ordered
		return true, nil
	case wire.KindTypedef:
		strong, err = d.order(btf.TypeID(t.SizeType()), throughPtr, depth)
		if err != nil {
			return false, err
		}
		if throughPtr && !strong {
			return false, nil // like a struct, may stay undefined for now
		}
		d.queue = append(d.queue, id)
		st.order = ordered
		return true, nil
	case wire.KindVolatile, wire.KindConst, wire.KindRestrict, wire.KindTypeTag:
		return d.order(btf.TypeID(t.SizeType()), throughPtr, depth)
	case wire.KindFuncProto:
		return d.orderProto(t, throughPtr, depth)
	case wire.KindFunc, wire.KindVar, wire.KindDatasec, wire.KindDeclTag:
		st.order = ordered
		return false, nil
	}
	return false, fmt.Errorf("cdump: %s: unsupported kind %v", d.describe(id), btf.Kind(t.Kind()))
}

// orderComposite orders a struct or union: unless it is named and reached
// through a pointer, its members come first and it is a strong link.
func (d *dumper) orderComposite(id btf.TypeID, t wire.Record, st *tstate, throughPtr bool, depth int) (bool, error) {
	named := t.NameOff() != 0
	if throughPtr && named {
		return false, nil
	}
	st.order = ordering
	for i := range t.Vlen() {
		if _, err := d.order(btf.TypeID(t.MemberType(i)), false, depth); err != nil {
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
func (d *dumper) orderProto(t wire.Record, throughPtr bool, depth int) (bool, error) {
	strong, err := d.order(btf.TypeID(t.SizeType()), throughPtr, depth)
	if err != nil {
		return false, err
	}
	for i := range t.Vlen() {
		s, err := d.order(btf.TypeID(t.ParamType(i)), throughPtr, depth)
		if err != nil {
			return false, err
		}
		strong = strong || s
	}
	return strong, nil
}
