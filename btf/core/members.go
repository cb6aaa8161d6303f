package core

import (
	"bytes"
	"slices"
	"sort"

	"github.com/kmeta-dev/kmeta/btf"
)

// libbpf's bpf_core_match_member scans a target composite's members in
// order for every field relocation, so an object with a relocation on
// each member of a wide struct costs the square of its width. A run over
// an object's relocations keeps, for each target composite of at least
// minIndexVlen members that a relocation reaches, its members sorted by
// name: a lookup then visits only the anonymous members before the first
// member of the wanted name, as the scan's result depends on nothing else.

const (
	// minIndexVlen is the width from which a composite is indexed: below
	// it a scan costs less than sorting.
	minIndexVlen = 16
	// maxIndexed bounds the members indexed in one run (4 bytes each);
	// past it, composites are scanned as libbpf scans them.
	maxIndexed = 1 << 20
)

// memberIndexes holds the member indexes of one run over an object's
// relocations. The zero value is ready; a nil *memberIndexes indexes
// nothing.
type memberIndexes struct {
	m map[memberKey]memberIndex
	n int // members indexed
}

type memberKey struct {
	s  *btf.Spec
	id btf.TypeID
}

// memberIndex is one composite's members: byName holds their positions
// sorted by name, then position, so the anonymous ones come first (nanon
// of them, in order) and the first of each name is its lowest position.
type memberIndex struct {
	byName []uint32
	nanon  int
}

// get returns the index of composite t of s, building it on first use;
// ok is false when t is not indexed (too narrow, or the run's bound is
// reached).
func (mi *memberIndexes) get(s *btf.Spec, t btf.Type) (memberIndex, bool) {
	vlen := t.Vlen()
	if mi == nil || vlen < minIndexVlen {
		return memberIndex{}, false
	}
	key := memberKey{s, t.ID()}
	if x, ok := mi.m[key]; ok {
		return x, true
	}
	if mi.n+vlen > maxIndexed {
		return memberIndex{}, false
	}
	if mi.m == nil {
		mi.m = make(map[memberKey]memberIndex)
	}
	x := buildMemberIndex(t, vlen)
	mi.m[key] = x
	mi.n += vlen
	return x, true
}

func buildMemberIndex(t btf.Type, vlen int) memberIndex {
	byName := make([]uint32, vlen)
	for i := range byName {
		byName[i] = uint32(i)
	}
	name := func(i uint32) []byte { return t.Member(int(i)).NameBytes() }
	slices.SortStableFunc(byName, func(a, b uint32) int { return bytes.Compare(name(a), name(b)) })
	nanon := sort.Search(vlen, func(k int) bool { return len(name(byName[k])) > 0 })
	return memberIndex{byName: byName, nanon: nanon}
}

// first returns the lowest position of a member named name, or -1.
func (x memberIndex) first(t btf.Type, name []byte) int {
	named := x.byName[x.nanon:]
	k := sort.Search(len(named), func(k int) bool {
		return bytes.Compare(t.Member(int(named[k])).NameBytes(), name) >= 0
	})
	if k == len(named) || !bytes.Equal(t.Member(int(named[k])).NameBytes(), name) {
		return -1
	}
	return int(named[k])
}

// anon returns the positions of the anonymous members, in order.
func (x memberIndex) anon() []uint32 { return x.byName[:x.nanon] }
