package core

import (
	"bytes"
	"hash/maphash"
	"math/bits"

	"github.com/kmeta-dev/kmeta/btf"
)

// libbpf's bpf_core_match_member scans a target composite's members in
// order for every field relocation, so an object with a relocation on
// each member of a wide struct costs the square of its width. A run over
// an object's relocations keeps, for each target composite of at least
// minIndexVlen members that a relocation reaches, a hash table of the
// first position of each member name: a lookup then visits only the
// anonymous members before the first member of the wanted name, as the
// scan's result depends on nothing else.

const (
	// minIndexVlen is the width from which a composite is indexed: below
	// it a scan costs less than hashing.
	minIndexVlen = 16
	// maxIndexed bounds the members indexed in one run (a slot of 4 bytes
	// for every 2/3 to 1/3 of a member, and 4 bytes for each anonymous
	// one); past it, composites are scanned as libbpf scans them.
	maxIndexed = 1 << 20
)

// memberIndexes holds the member indexes of one run over an object's
// relocations. The zero value is ready; a nil *memberIndexes indexes
// nothing.
type memberIndexes struct {
	m    map[memberKey]memberIndex
	n    int // members indexed
	seed maphash.Seed
}

type memberKey struct {
	s  *btf.Spec
	id btf.TypeID
}

// memberIndex is one composite's members: slots is a hash table, open
// addressed and probed linearly, of each name's lowest position plus one
// (0 is an empty slot), at most two thirds full; anonymous holds the
// positions of the anonymous members, in order.
type memberIndex struct {
	slots     []uint32
	anonymous []uint32
	seed      maphash.Seed
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
		mi.seed = maphash.MakeSeed()
	}
	x := buildMemberIndex(t, vlen, mi.seed)
	mi.m[key] = x
	mi.n += vlen
	return x, true
}

func buildMemberIndex(t btf.Type, vlen int, seed maphash.Seed) memberIndex {
	x := memberIndex{slots: make([]uint32, 1<<bits.Len(uint(vlen+vlen/2))), seed: seed}
	for i, m := range t.Members() {
		name := m.NameBytes()
		if len(name) == 0 {
			x.anonymous = append(x.anonymous, uint32(i))
			continue
		}
		j, found := x.slot(t, name)
		if !found {
			x.slots[j] = uint32(i) + 1
		}
	}
	return x
}

// slot returns the slot of name: the one that holds its first position
// if found, else the empty one where the probe ended.
func (x memberIndex) slot(t btf.Type, name []byte) (j int, found bool) {
	mask := len(x.slots) - 1
	for j = int(maphash.Bytes(x.seed, name)) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		if bytes.Equal(t.Member(int(x.slots[j]-1)).NameBytes(), name) {
			return j, true
		}
	}
	return j, false
}

// first returns the lowest position of a member named name, or -1.
func (x memberIndex) first(t btf.Type, name []byte) int {
	j, found := x.slot(t, name)
	if !found {
		return -1
	}
	return int(x.slots[j]) - 1
}

// anon returns the positions of the anonymous members, in order.
func (x memberIndex) anon() []uint32 { return x.anonymous }
