package builder

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
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
	var roots []btf.Type
	for _, w := range want {
		ts, err := s.Find(w.Name, btf.FindOptions{Kind: w.Kind})
		if err != nil {
			return nil, err
		}
		roots = append(roots, ts...)
	}
	b := New()
	// One copy into a fresh Builder: a cache of the source's string
	// offsets would hold an entry for every distinct name copied, beside
	// the Builder's own index of them.
	for _, t := range roots {
		if t.IsVoid() {
			continue
		}
		for _, src := range b.sourceOf(t.Spec()).chain {
			src.uncached = true
		}
	}
	if err := b.copyTypes(roots, opts.FwdPointees); err != nil {
		return nil, err
	}
	return b, nil
}
