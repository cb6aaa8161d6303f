package cdump

import (
	"fmt"
	"iter"

	"github.com/kmeta-dev/kmeta/btf"
)

// maxCycleSteps bounds the search of deepError: the types a crafted graph
// lets it visit.
const maxCycleSteps = 1 << 20

// deepError is the error for a walk from id that went deeper than
// maxDepth: ErrTypeCycle if a cycle can be reached from id (loops of
// pointers or typedefs are found that way), ErrTooDeep otherwise.
func (d *dumper) deepError(id btf.TypeID, what string) error {
	if d.cycleFrom(id) {
		return fmt.Errorf("cdump: %s: %s: %w", d.describe(id), what, ErrTypeCycle)
	}
	return fmt.Errorf("cdump: %s: %w", d.describe(id), ErrTooDeep)
}

// cycleFrom reports whether a cycle of references can be reached from id
// (a search of at most maxCycleSteps types; beyond it, no).
func (d *dumper) cycleFrom(id btf.TypeID) bool {
	const (
		open = 1
		done = 2
	)
	color := map[btf.TypeID]uint8{}
	type frame struct {
		id   btf.TypeID
		next func() (btf.TypeID, bool)
		stop func()
	}
	push := func(stack []frame, id btf.TypeID) []frame {
		t, err := d.spec.TypeByID(id)
		if err != nil {
			color[id] = done
			return stack
		}
		color[id] = open
		next, stop := iter.Pull(t.Refs())
		return append(stack, frame{id, next, stop})
	}
	stack := push(nil, id)
	for steps := 0; len(stack) > 0 && steps < maxCycleSteps; steps++ {
		top := &stack[len(stack)-1]
		ref, ok := top.next()
		if !ok {
			top.stop()
			color[top.id] = done
			stack = stack[:len(stack)-1]
			continue
		}
		switch color[ref] {
		case open:
			for _, f := range stack {
				f.stop()
			}
			return true
		case 0:
			if ref != 0 {
				stack = push(stack, ref)
			}
		}
	}
	for _, f := range stack {
		f.stop()
	}
	return false
}
