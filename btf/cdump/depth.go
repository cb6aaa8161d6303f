package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// maxCycleSteps bounds the search of deepError: the types a crafted graph
// lets it visit.
const maxCycleSteps = 1 << 20

// deepError is the error for a walk from id that went deeper than
// maxDepth: ErrTypeCycle if a cycle can be reached from id (loops of
// pointers or typedefs are found that way), ErrTooDeep otherwise.
func (d *dumper) deepError(id btf.TypeID, what string) error {
	if d.cycleFrom(id) {
		return pkgerr.Errorf("cdump: %s: %s: %w", d.describe(id), what, ErrTypeCycle)
	}
	return pkgerr.Errorf("cdump: %s: %w", d.describe(id), ErrTooDeep)
}

// cycleFrom reports whether a cycle of references can be reached from id
// (a search of at most maxCycleSteps types; beyond it, no). The walk keeps
// one mark per type and, for the types on its path, their references in
// one slice: memory linear in the types, where a goroutine per type on
// the path (iter.Pull) would cost a stack each on a long chain of
// pointers.
func (d *dumper) cycleFrom(id btf.TypeID) bool {
	const (
		open = 1
		done = 2
	)
	color := make([]uint8, d.spec.LastID()+1)
	// A frame's references are refs[start:end]; next is the one to follow.
	type frame struct {
		id               btf.TypeID
		start, next, end int
	}
	var stack []frame
	var refs []btf.TypeID
	push := func(id btf.TypeID) {
		color[id] = open
		start := len(refs)
		if t, err := d.spec.TypeByID(id); err == nil {
			for ref := range t.Refs() {
				refs = append(refs, ref)
			}
		}
		stack = append(stack, frame{id, start, start, len(refs)})
	}
	push(id)
	for steps := 0; len(stack) > 0 && steps < maxCycleSteps; steps++ {
		top := &stack[len(stack)-1]
		if top.next == top.end {
			color[top.id] = done
			refs = refs[:top.start]
			stack = stack[:len(stack)-1]
			continue
		}
		ref := refs[top.next]
		top.next++
		if int(ref) >= len(color) {
			continue
		}
		switch color[ref] {
		case open:
			return true
		case 0:
			if ref != 0 {
				push(ref)
			}
		}
	}
	return false
}
