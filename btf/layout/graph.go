package layout

import (
	"math"

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

// The walk's marks are in the nodes (markOpen, markDone), and so is the
// cost of printing each anonymous struct or union it walked: the members
// and names it prints (saturated at the step limit), added to the cost of
// whatever holds it; a struct's node has no reference, and holds it
// there (see node). A named one prints by name in another struct and
// costs it nothing.

// frame is one struct or union on the walk's stack, the index of its
// next member, the cost counted so far and, in check, how deep it nests.
type frame struct {
	id    btf.TypeID
	next  uint32
	sum   uint32
	level uint32 // anonymous records nested down to this one, in check
}

// walkStack is a stack of frames in blocks that never move: a walk as
// deep as the input makes it grows without copying, and a frame's
// pointer stays valid while frames are pushed above it.
type walkStack struct {
	blocks [][]frame
	n      int
}

// walkBlock is the frames of one block of walkStack.
const walkBlock = 4096

func (w *walkStack) push(f frame) {
	b := w.n / walkBlock
	if b == len(w.blocks) {
		w.blocks = append(w.blocks, make([]frame, walkBlock))
	}
	w.blocks[b][w.n%walkBlock] = f
	w.n++
}

func (w *walkStack) top() *frame { return &w.blocks[(w.n-1)/walkBlock][(w.n-1)%walkBlock] }

func (w *walkStack) pop() { w.n-- }

// check returns an error if printing the struct or union id would not
// end (it contains itself), would nest deeper than the printer's levels,
// or would take more than budget members and names, in that order of
// preference.
func (p *printer) check(id btf.TypeID, budget int) error {
	limit := uint32(min(max(budget, 0), math.MaxUint32-1)) + 1
	add := func(a, b uint32) uint32 { return uint32(min(uint64(a)+uint64(b), uint64(limit))) }
	w := &p.walk
	base := w.n
	w.push(frame{id: id})
	p.set(id, markOpen)
	var total uint32
	var deep error // tooDeepError, once a path passed p.levels
	for w.n > base {
		f := w.top()
		t := p.typ(f.id)
		if int(f.next) >= t.Vlen() { // >=: a Spec closed under the walk reads 0 members
			p.nodes[f.id].flags = p.nodes[f.id].flags&^markOpen | markDone
			w.pop()
			switch {
			case w.n == base:
				total = f.sum
			case p.expands(f.id):
				p.nodes[f.id].ref = btf.TypeID(f.sum)
				parent := w.top()
				parent.sum = add(parent.sum, f.sum)
			}
			continue
		}
		m := t.Member(int(f.next))
		f.next++
		f.sum = add(f.sum, 1)
		child, ok := p.held(m.Type)
		if !ok {
			continue
		}
		switch {
		case p.has(child, markOpen):
			w.n = base
			if child == id {
				// The caller names it: "STRUCT 's' [2]: STRUCT 's'
				// [2] contains itself" said it twice.
				return pkgerr.Errorf("layout: contains itself: %w", ErrTooComplex)
			}
			return pkgerr.Errorf("layout: %s contains itself: %w", p.typ(child), ErrTooComplex)
		case p.has(child, markDone):
			if p.expands(child) {
				f.sum = add(f.sum, uint32(p.nodes[child].ref))
			}
		default:
			level := uint32(0)
			if p.expands(child) {
				level = f.level + 1
			}
			if level > uint32(p.levels) && deep == nil {
				// Refused, but the walk goes on (linear in the types
				// it reaches, as before): a struct that contains itself
				// through deep anonymous types is refused for that.
				deep = tooDeepError(p.levels)
			}
			p.set(child, markOpen)
			w.push(frame{id: child, level: level})
		}
	}
	if deep != nil {
		return deep
	}
	if budget <= 0 {
		// What was printed before spent the input's limit.
		return pkgerr.Errorf("layout: the input's limit of %d members and names printed is reached: %w", p.maxSteps, ErrTooComplex)
	}
	if total > uint32(budget) {
		return pkgerr.Errorf("layout: prints more than %d members: %w", budget, ErrTooComplex)
	}
	return nil
}

// held follows a member's type through what the printer or the size and
// alignment computations look through (typedefs, qualifiers, type tags,
// arrays, pointers to anonymous structs and unions) to the struct or union
// they reach, if any.
func (p *printer) held(id btf.TypeID) (btf.TypeID, bool) {
	for range p.chain(id) {
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
