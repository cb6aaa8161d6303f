package layout

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// The layout of a struct prints its anonymous member types in full, at
// each use, and computes sizes and alignments through the types its
// members hold by value. A struct that holds itself, or a few anonymous
// types each used twice by the next, make that infinite or exponential:
// graph checks each struct before it is printed, in time and memory linear
// in the types it reaches, and refuses it at once, where printing would
// take memory and time exponential in a tiny input before reaching the
// step limit.

// graph holds the cost of printing each anonymous struct or union that
// check walked: the members and names it prints (saturated at the step
// limit), added to the cost of whatever holds it. A named one prints by
// name in another struct and costs it nothing; the walk's marks are in
// the nodes (markOpen, markDone).
type graph struct {
	cost map[btf.TypeID]uint32
}

// frame is one struct or union on the walk's stack, and the index of its
// next member.
type frame struct {
	id   btf.TypeID
	next int
	sum  uint64
}

// check returns an error if printing the struct or union id would not
// end, or would take more than budget members and names.
func (p *printer) check(id btf.TypeID, budget int) error {
	if p.g.cost == nil {
		p.g.cost = make(map[btf.TypeID]uint32)
	}
	stack := []frame{{id: id}}
	p.set(id, markOpen)
	var total uint64
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		t := p.typ(f.id)
		if f.next == t.Vlen() {
			cost := min(f.sum, uint64(budget)+1)
			p.nodes[f.id].flags = p.nodes[f.id].flags&^markOpen | markDone
			stack = stack[:len(stack)-1]
			switch n := len(stack); {
			case n == 0:
				total = cost
			case p.expands(f.id):
				p.g.cost[f.id] = uint32(cost)
				stack[n-1].sum += cost
			}
			continue
		}
		m := t.Member(f.next)
		f.next++
		f.sum++
		child, ok := p.held(m.Type)
		if !ok {
			continue
		}
		switch {
		case p.has(child, markOpen):
			return pkgerr.Errorf("layout: %s contains itself: %w", p.typ(child), ErrTooComplex)
		case p.has(child, markDone):
			if p.expands(child) {
				f.sum += uint64(p.g.cost[child])
			}
		default:
			p.set(child, markOpen)
			stack = append(stack, frame{id: child})
		}
	}
	if total > uint64(budget) {
		return pkgerr.Errorf("layout: prints more than %d members: %w", budget, ErrTooComplex)
	}
	return nil
}

// held follows a member's type through what the printer or the size and
// alignment computations look through (typedefs, qualifiers, type tags,
// arrays, pointers to anonymous structs and unions) to the struct or union
// they reach, if any.
func (p *printer) held(id btf.TypeID) (btf.TypeID, bool) {
	for range maxChain {
		switch p.kind(id) {
		case btf.KindStruct, btf.KindUnion:
			return id, true
		case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			id = p.ref(id)
		case btf.KindArray:
			id = p.typ(id).Array().Type
		case btf.KindPointer:
			id = p.ref(id)
			if k := p.kind(id); k != btf.KindStruct && k != btf.KindUnion || p.typ(id).NameOffset() != 0 {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return 0, false
}

// expands reports whether printing a type that holds child prints it in full: child is
// anonymous. (An anonymous type reached through a typedef is printed by
// name; counting it anyway only makes the bound looser.)
func (p *printer) expands(child btf.TypeID) bool {
	return p.typ(child).NameOffset() == 0
}
