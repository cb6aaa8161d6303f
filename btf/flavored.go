package btf

import (
	"bytes"
	"iter"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// FindFlavors iterates, in id order, over the types of s whose kind is
// one of q.Kinds and whose name without its CO-RE flavor suffix (see
// EssentialName) is one of q.Names: "task_struct" finds task_struct and
// task_struct___2. Empty names are ignored. opts.Scope picks the part of
// a split chain to search; opts.Kind and opts.Flavors do nothing here
// (q.Kinds chooses the kinds, and flavors always match).
//
// It is the candidate search of CO-RE relocations (libbpf's
// bpf_core_add_cands) for many names at once: one walk over the records,
// which skips groups of records holding none of the kinds, and for the
// others compares the first bytes of the name in place before reading
// the rest (btf/core's BenchmarkResolve). Nothing is yielded once the
// Spec is closed.
func (s *Spec) FindFlavors(q FlavorQuery, opts FindOptions) iter.Seq[Type] {
	f := q.filter()
	return func(yield func(Type) bool) {
		for _, o := range s.chain(opts.Scope) {
			if !o.intact() || !o.findFlavors(f, yield) {
				return
			}
		}
	}
}

// flavorFilter is what FindFlavors looks for (FlavorQuery.filter).
type flavorFilter struct {
	groups uint16        // kind bits of the group summaries
	kinds  uint32        // 1<<kind of each kind
	first  [256][]string // names by their first byte
}

func (s *Spec) findFlavors(f *flavorFilter, yield func(Type) bool) bool {
	types := s.types
	if s.found != nil && s.found.f.covers(f) {
		for _, seg := range s.found.segs {
			for _, t := range seg {
				if f.kinds&(1<<(wire.InfoKind(wire.InfoWord(types, t.off))&31)) != 0 && s.nameHasEssential(wire.Word(types, t.off+wire.NameAt), f) &&
					!s.yieldType(t.id, t.off, yield) {
					return false
				}
			}
		}
		return true
	}
	for g, off := range s.index {
		if s.kinds[g]&f.groups == 0 {
			continue // no type of these kinds in the group
		}
		first := uint32(g) << s.shift
		for i := first; i < min(first+1<<s.shift, s.n); i++ {
			info := wire.InfoWord(types, off)
			if f.kinds&(1<<(wire.InfoKind(info)&31)) != 0 && s.nameHasEssential(wire.Word(types, off+wire.NameAt), f) &&
				!s.yieldType(s.firstID+TypeID(i), off, yield) {
				return false
			}
			off += s.sizes.Of(info)
		}
	}
	return true
}

// nameHasEssential reports whether the string at off, without its flavor
// suffix, is one of f's names. Strings whose first byte starts none of
// them are ruled out without finding their end.
func (s *Spec) nameHasEssential(off uint32, f *flavorFilter) bool {
	for o := s; o != nil; o = o.base {
		if off < o.strStart {
			continue
		}
		rel := uint64(off - o.strStart)
		if rel >= uint64(len(o.strs)) {
			return false
		}
		rest := o.strs[rel:]
		for _, n := range f.first[rest[0]] {
			if len(rest) <= len(n) || string(rest[:len(n)]) != n {
				continue
			}
			if rest[len(n)] == 0 {
				return true
			}
			end := bytes.IndexByte(rest, 0)
			if end >= 0 && essentialLen(rest[:end]) == len(n) {
				return true
			}
		}
		return false
	}
	return false
}
