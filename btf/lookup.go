package btf

import (
	"iter"

	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TypeByID returns the type with the given id, looking in the base Specs for
// ids below FirstID. Id 0 returns void. An id past LastID gives an error
// wrapping ErrNotFound; a closed Spec gives ErrClosed.
func (s *Spec) TypeByID(id TypeID) (Type, error) {
	if !s.alive() {
		return Type{}, ErrClosed
	}
	if id == 0 {
		return Type{}, nil
	}
	o := s.owner(id)
	if o == nil {
		return Type{}, pkgerr.Errorf("btf: type id %d (last is %d): %w", id, s.LastID(), ErrNotFound)
	}
	if o.discardedID(id) {
		return Type{}, pkgerr.Errorf("btf: type id %d: %w", id, errDiscarded)
	}
	off := o.offsetOf(id)
	if o.lazy {
		if err := o.checkOut(id, off); err != nil {
			return Type{}, err
		}
	}
	return Type{spec: o, id: id, off: off}, nil
}

// Scope selects which Specs of a split chain a lookup or iteration covers.
//
// Its values are ScopeAll (the Spec and all its bases, the zero value),
// ScopeOwn (the Spec's own types) and ScopeBases (only the bases).
type Scope uint8

// Scopes.
const (
	ScopeAll   Scope = iota // the Spec and all its bases
	ScopeOwn                // only the Spec's own types (the split part)
	ScopeBases              // only the base Specs
)

// Types iterates over types in id order: the Spec's own types, or with
// ScopeAll the bases' types first. Void is not included. Nothing is yielded
// once the Spec is closed.
func (s *Spec) Types(scope Scope) iter.Seq2[TypeID, Type] {
	return func(yield func(TypeID, Type) bool) {
		for _, o := range s.chain(scope) {
			if !o.intact() {
				return
			}
			off := uint32(0)
			for i := range o.n {
				t := Type{spec: o, id: o.firstID + TypeID(i), off: off}
				if o.lazy && o.checkOut(t.id, off) != nil || !yield(t.id, t) {
					return
				}
				off += o.sizes.Of(wire.InfoWord(o.types, off))
			}
		}
	}
}

// All iterates over every type of the Spec and its bases, in id order. It is
// Types(ScopeAll).
func (s *Spec) All() iter.Seq2[TypeID, Type] { return s.Types(ScopeAll) }

// chain returns the Specs a scope covers, base first. It allocates a short
// slice.
func (s *Spec) chain(scope Scope) []*Spec {
	var all []*Spec
	for o := s; o != nil; o = o.base {
		all = append(all, o)
	}
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	switch scope {
	case ScopeOwn:
		return all[len(all)-1:]
	case ScopeBases:
		return all[:len(all)-1]
	}
	return all
}

// FindOptions narrow a lookup by name.
type FindOptions struct {
	// Kind, if not KindUnknown, keeps only types of this kind.
	Kind Kind
	// Flavors makes the lookup match "name___suffix" as well as "name", as
	// CO-RE does: the part from the last "___" on is ignored, in the name
	// looked for and in the names compared with it.
	Flavors bool
	// Scope picks the part of a split chain to search.
	Scope Scope
}

// Find returns every type named name (and matching opts), in id order; the
// name "" finds anonymous types. An empty result gives an error wrapping
// ErrNotFound. A closed Spec gives ErrClosed. In a lazy Spec, a record
// met on the way that fails its check gives that error (see Err), not a
// shorter result.
//
// Find scans the types without building an index, comparing each record's
// name in place (see BenchmarkFind).
func (s *Spec) Find(name string, opts FindOptions) ([]Type, error) {
	if !s.alive() {
		return nil, ErrClosed
	}
	if !s.intact() {
		return nil, errDiscarded
	}
	var out []Type
	if err := s.findAll(name, opts, func(t Type) { out = append(out, t) }); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, notFound(name, opts)
	}
	return out, nil
}

// findAll hands every match to yield, as find yields them. Unlike find, it
// tells a search cut short by a lazy record that failed its check from
// one that ended: it returns that failure (Err), where Find would
// otherwise report fewer types, or none, as if the broken one were not
// there.
func (s *Spec) findAll(name string, opts FindOptions, yield func(Type)) error {
	if opts.Flavors {
		name = EssentialName(name)
	}
	for _, o := range s.chain(opts.Scope) {
		if !o.intact() {
			return errDiscarded
		}
		if !o.findIn(name, opts, func(t Type) bool { yield(t); return true }) {
			return o.Err()
		}
	}
	return nil
}

// notFound is the error of a lookup of name that found nothing.
func notFound(name string, opts FindOptions) error {
	if opts.Kind != KindUnknown {
		return pkgerr.Errorf("btf: %v %q: %w", opts.Kind, name, ErrNotFound)
	}
	return pkgerr.Errorf("btf: type %q: %w", name, ErrNotFound)
}

// Matches yields every type that Find returns, in id order, without
// holding them: for callers that print or count the matches of a name
// that many types may share. A closed Spec yields nothing.
func (s *Spec) Matches(name string, opts FindOptions) iter.Seq[Type] { return s.find(name, opts) }

// FindOne is Find for callers that expect exactly one type: several matches
// give an error wrapping ErrMultipleMatches. It holds only the first match
// and counts the others, however many types share the name.
func (s *Spec) FindOne(name string, opts FindOptions) (Type, error) {
	if !s.alive() {
		return Type{}, ErrClosed
	}
	var first Type
	n := 0
	err := s.findAll(name, opts, func(t Type) {
		if n == 0 {
			first = t
		}
		n++
	})
	if err != nil {
		return Type{}, err
	}
	if n == 0 {
		return Type{}, notFound(name, opts)
	}
	if n > 1 {
		return Type{}, pkgerr.Errorf("btf: type %q: %d types: %w", name, n, ErrMultipleMatches)
	}
	return first, nil
}

// find yields the matching types without allocating a result slice.
func (s *Spec) find(name string, opts FindOptions) iter.Seq[Type] {
	if opts.Flavors {
		name = EssentialName(name)
	}
	return func(yield func(Type) bool) {
		for _, o := range s.chain(opts.Scope) {
			if !o.intact() || !o.findIn(name, opts, yield) {
				return
			}
		}
	}
}

// findIn searches one Spec's own types; it returns false if yield did.
func (s *Spec) findIn(name string, opts FindOptions, yield func(Type) bool) bool {
	if !opts.Flavors {
		return s.scanName(name, opts.Kind, yield)
	}
	off := uint32(0)
	for i := range s.n {
		info := wire.InfoWord(s.types, off)
		if opts.Kind == KindUnknown || Kind(wire.InfoKind(info)) == opts.Kind {
			b, _ := s.str(wire.Word(s.types, off+wire.NameAt))
			if string(essentialBytes(b)) == name && !s.yieldType(s.firstID+TypeID(i), off, yield) {
				return false
			}
		}
		off += s.sizes.Of(info)
	}
	return true
}

// scanName yields the types of kind kind (any for KindUnknown) named name (BenchmarkFindTaskStruct).
// It walks the records in groups that start at the offsets of the sparse
// index: the groups do not depend on each other, so the processor overlaps
// them instead of waiting for each record's size to find the next.
func (s *Spec) scanName(name string, kind Kind, yield func(Type) bool) bool {
	types := s.types
	want := ^uint16(0)
	if kind != KindUnknown {
		want = kindBit(kind)
	}
	for g, off := range s.index {
		if s.kinds[g]&want == 0 {
			continue // no type of this kind in the group
		}
		first := uint32(g) << s.shift
		for i := first; i < min(first+1<<s.shift, s.n); i++ {
			info := wire.InfoWord(types, off)
			if (kind == KindUnknown || Kind(wire.InfoKind(info)) == kind) && s.nameIs(wire.Word(types, off+wire.NameAt), name) &&
				!s.yieldType(s.firstID+TypeID(i), off, yield) {
				return false
			}
			off += s.sizes.Of(info)
		}
	}
	return true
}

// nameIs reports whether the string at off is name.
func (s *Spec) nameIs(off uint32, name string) bool {
	for o := s; o != nil; o = o.base {
		if off >= o.strStart {
			rel := uint64(off - o.strStart)
			end := rel + uint64(len(name))
			return end < uint64(len(o.strs)) && o.strs[end] == 0 && string(o.strs[rel:end]) == name
		}
	}
	return false
}

// EssentialName returns name without a CO-RE flavor suffix. As in libbpf,
// the suffix starts at the last "___" that has a character other than '_'
// on both sides: "foo___a" and "foo___b" both give "foo"; "foo", "___x" and
// "foo____" are unchanged.
func EssentialName(name string) string {
	return name[:essentialLen(name)]
}

func essentialBytes(b []byte) []byte {
	return b[:essentialLen(b)]
}

func essentialLen[S string | []byte](s S) int {
	for i := len(s) - 5; i >= 0; i-- {
		if s[i] != '_' && s[i+1] == '_' && s[i+2] == '_' && s[i+3] == '_' && s[i+4] != '_' {
			return i + 1
		}
	}
	return len(s)
}
