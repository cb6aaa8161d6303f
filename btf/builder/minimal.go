package builder

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Want names types for Minimal: every type called Name, of kind Kind unless
// Kind is btf.KindUnknown.
type Want struct {
	Name string
	Kind btf.Kind
}

// ParseWant reads a type selector as the command line spells it: "NAME",
// "KIND:NAME" or "KIND NAME", where KIND is a kind as btf.ParseKind reads
// it ("struct", "typedef", "func", ...). An unknown kind or an empty name
// gives an error.
func ParseWant(s string) (Want, error) {
	s = strings.TrimSpace(s)
	kind, name, ok := strings.Cut(s, ":")
	if !ok {
		kind, name, ok = strings.Cut(s, " ")
	}
	if !ok {
		if s == "" {
			return Want{}, fmt.Errorf("builder: empty type name")
		}
		return Want{Name: s}, nil
	}
	k, known := btf.ParseKind(strings.TrimSpace(kind))
	name = strings.TrimSpace(name)
	switch {
	case !known:
		return Want{}, fmt.Errorf("builder: type %q: unknown kind %q", s, kind)
	case name == "":
		return Want{}, fmt.Errorf("builder: type %q: empty name", s)
	}
	return Want{Name: name, Kind: k}, nil
}

// MinimalOptions select how Minimal shrinks its output.
type MinimalOptions struct {
	// FwdPointees turns every named struct and union that is reachable
	// from the wanted types only through pointers into a FWD (a forward
	// declaration), and does not follow its members. Typedefs, qualifiers
	// and function prototypes pass the "through a pointer" state on;
	// members, array elements and variables reset it. Anonymous structs
	// and unions stay whole, since a FWD needs a name. The default keeps
	// every struct and union whole.
	FwdPointees bool
}

// Minimal returns a Builder holding the types of s named by want (all of
// them, where a name has several), and every type they reference, with ids
// numbered densely from 1 in their order in s. The result is standalone
// BTF also when s is split: the base types needed are copied in.
//
// A name that matches no type gives an error wrapping btf.ErrNotFound. A
// closed Spec gives btf.ErrClosed.
func Minimal(s *btf.Spec, want []Want, opts MinimalOptions) (*Builder, error) {
	// The matches and what they reach are counted first, and the matches
	// read again as they are copied: a name that a million types share is
	// refused at once, naming it, before their closure is gathered.
	for _, w := range want {
		if !hasMatch(s, w) {
			_, err := s.Find(w.Name, btf.FindOptions{Kind: w.Kind})
			if err == nil {
				err = btf.ErrClosed // closed between the two lookups
			}
			return nil, err
		}
	}
	size := 0
	if !opts.FwdPointees {
		// FWDs can only make the closure smaller: the copy's own check
		// refuses it then.
		n, w := closureSize(s, want)
		if w != nil {
			return nil, pkgerr.Errorf("builder: type %q reaches %d types or more, more than BTF holds: %w", w.Name, n, ErrTooManyTypes)
		}
		size = n
	}
	roots := func(yield func(btf.Type) bool) {
		for _, w := range want {
			for t := range s.Matches(w.Name, btf.FindOptions{Kind: w.Kind}) {
				if !yield(t) {
					return
				}
			}
		}
	}
	b := New()
	// One copy into a fresh Builder: a cache of the source's string
	// offsets would hold an entry for every distinct name copied, beside
	// the Builder's own index of them.
	for _, src := range b.sourceOf(s).chain {
		src.uncached = true
	}
	if err := b.copyTypes(roots, opts.FwdPointees, size); err != nil {
		return nil, err
	}
	return b, nil
}

func hasMatch(s *btf.Spec, w Want) bool {
	for range s.Matches(w.Name, btf.FindOptions{Kind: w.Kind}) {
		return true
	}
	return false
}

// closureSize counts the types that the matches of want reach, with a bit
// a type and a stack of ids, and returns the want whose matches took the
// count past what BTF holds, or nil.
func closureSize(s *btf.Spec, want []Want) (int, *Want) {
	seen := make([]uint64, (int(s.LastID())+64)/64)
	var stack []btf.TypeID
	n := 0
	push := func(id btf.TypeID) {
		if id != 0 && int(id) <= int(s.LastID()) && seen[id/64]&(1<<(id%64)) == 0 {
			seen[id/64] |= 1 << (id % 64)
			stack = append(stack, id)
		}
	}
	for i := range want {
		w := &want[i]
		for t := range s.Matches(w.Name, btf.FindOptions{Kind: w.Kind}) {
			push(t.ID())
			for len(stack) > 0 {
				id := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if n++; n > wire.MaxTypeID {
					return n, w
				}
				t, err := s.TypeByID(id)
				if err != nil {
					continue
				}
				for r := range t.Refs() {
					push(r)
				}
			}
		}
	}
	return n, nil
}
