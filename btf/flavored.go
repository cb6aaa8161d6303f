package btf

import (
	"iter"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// FindNamed iterates, in id order, over the named types of s (in scope)
// whose kind is one of kinds and whose name match accepts. match gets the
// name as bytes of the Spec, valid only during the call.
//
// It serves searches for many names at once, such as the candidate
// search of CO-RE relocations (libbpf's bpf_core_add_cands), where match
// looks the essential name (EssentialName) up in a set: one walk over the
// records, which skips groups of records holding none of the kinds and
// reads the names of the others in place (btf/core's BenchmarkResolve).
// Nothing is yielded once the Spec is closed.
func (s *Spec) FindNamed(kinds []Kind, scope Scope, match func(name []byte) bool) iter.Seq[Type] {
	var want uint16
	var exact uint32
	for _, k := range kinds {
		want |= kindBit(k)
		exact |= 1 << (k & 31)
	}
	return func(yield func(Type) bool) {
		for _, o := range s.chain(scope) {
			if !o.alive() || !o.findNamed(want, exact, match, yield) {
				return
			}
		}
	}
}

func (s *Spec) findNamed(want uint16, exact uint32, match func([]byte) bool, yield func(Type) bool) bool {
	types := s.types
	for g, off := range s.index {
		if s.kinds[g]&want == 0 {
			continue // no type of these kinds in the group
		}
		first := uint32(g) << indexShift
		for i := first; i < min(first+1<<indexShift, s.n); i++ {
			info := wire.InfoWord(types, off)
			if exact&(1<<(wire.InfoKind(info)&31)) != 0 {
				name, _ := s.str(wire.Word(types, off+wire.NameAt))
				if len(name) > 0 && match(name) {
					if !yield(Type{spec: s, id: s.firstID + TypeID(i), off: off}) {
						return false
					}
				}
			}
			off += s.sizes.Of(info)
		}
	}
	return true
}
