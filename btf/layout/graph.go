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

// Marks of graph's walk.
const (
	unseen uint8 = iota
	open
	done
)

// graph holds, by type id, the marks of the walk and the number of
// members that printing a struct or union takes (saturated at the step
// limit).
type graph struct {
	mark []uint8
	cost []uint32
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
	if p.g.mark == nil {
		p.g = graph{mark: make([]uint8, len(p.nodes)), cost: make([]uint32, len(p.nodes))}
	}
	g := &p.g
	stack := []frame{{id: id}}
	g.mark[id] = open
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		t := p.typ(f.id)
		if f.next == t.Vlen() {
			g.mark[f.id], g.cost[f.id] = done, uint32(min(f.sum, uint64(budget)+1))
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 && p.expands(f.id) {
				stack[n-1].sum += uint64(g.cost[f.id])
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
		switch g.mark[child] {
		case open:
			return pkgerr.Errorf("layout: %s contains itself: %w", p.typ(child), ErrTooComplex)
		case done:
			if p.expands(child) {
				f.sum += uint64(g.cost[child])
			}
		default:
			g.mark[child] = open
			stack = append(stack, frame{id: child})
		}
	}
	if c := int(g.cost[id]); c > budget {
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
