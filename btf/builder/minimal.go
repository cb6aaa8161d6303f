package builder

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
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
// WriteMinimal writes the same bytes without holding them.
//
// A name that matches no type gives an error wrapping btf.ErrNotFound. A
// closed Spec gives btf.ErrClosed. Names whose types reach more types
// than BTF holds are refused before the types are copied, with an error
// wrapping ErrTooManyTypes.
func Minimal(s *btf.Spec, want []Want, opts MinimalOptions) (*Builder, error) {
	b := New()
	m, err := b.minimalWalk(s, want, opts)
	if err != nil {
		return nil, err
	}
	if err := b.fillMinimal(m); err != nil {
		return nil, err
	}
	return b, nil
}

// fillMinimal copies the closure that m found and numbered into b.
func (b *Builder) fillMinimal(m *minWalk) error {
	// The records walked, and a FWD for each of the others.
	b.types = make([]byte, 0, m.recBytes+max(0, m.n-m.walked)*wire.TypeSize)
	names, size := newNames(m.n+m.elems, m.srcs)
	b.strs.grow(names, min(size, m.nameBytes))
	return m.each(func(k int, t btf.Type, asFwd bool) error {
		return b.encode(t, m.srcs[k], asFwd)
	})
}

// minimalWalk finds and numbers the closure that Minimal copies into b, a
// fresh Builder. Each name is checked first, so that one that matches
// nothing is named before any type is walked.
func (b *Builder) minimalWalk(s *btf.Spec, want []Want, opts MinimalOptions) (*minWalk, error) {
	for _, w := range want {
		if !hasMatch(s, w) {
			_, err := s.Find(w.Name, btf.FindOptions{Kind: w.Kind})
			if err == nil {
				err = btf.ErrClosed // closed between the two lookups
			}
			return nil, err
		}
	}
	top := b.sourceOf(s)
	top.refresh()
	// One copy into a fresh Builder: a cache of the source's string
	// offsets would hold an entry for every distinct name copied, beside
	// the Builder's own index of them.
	for _, src := range top.chain {
		src.uncached = true
	}
	m := newMinWalk(top, opts.FwdPointees)
	if err := m.run(s, want); err != nil {
		return nil, err
	}
	// A lazy Spec's matches end at a record that fails its check: the
	// closure would lack the types from there on.
	if err := s.Err(); err != nil {
		return nil, err
	}
	m.stack = nil
	m.number(b.NextID())
	return m, nil
}

func hasMatch(s *btf.Spec, w Want) bool {
	for range s.Matches(w.Name, btf.FindOptions{Kind: w.Kind}) {
		return true
	}
	return false
}
