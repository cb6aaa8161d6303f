package cdump

import "github.com/kmeta-dev/kmeta/btf"

// sortMemo keeps, while sorting, what the walks along chains of typedefs,
// qualifiers, pointers and arrays found, so that each link is walked once
// whatever the number of types that lead through it: without it, a chain
// of n typedefs costs n²/2 steps.
//
// Its slices have a slot for every type, the slot of type id being id,
// when the whole sort fits in one window (sortKeys): about 21 bytes a
// type. Otherwise (newCacheMemo) they have a fixed number of slots, the
// slot of a type being a hash of its id, and tags says which type holds
// each: a type whose slot another took is walked again, which costs time,
// never a different result.
type sortMemo struct {
	rank     []uint8  // rankNamed + 1; 0 until known
	name     []uint32 // sortNameRef
	nameDone []uint64 // a bit per slot: name is known
	hash     [2][]uint64
	hashDone [2][]uint64 // a bit per slot: hash[members] is known

	tags  []btf.TypeID // the type in each slot; nil when the slot is the id
	shift uint8        // 32 - log2(slots), with tags
}

func newSortMemo(n int) *sortMemo {
	words := (n + 63) / 64
	return &sortMemo{
		rank: make([]uint8, n), name: make([]uint32, n), nameDone: make([]uint64, words),
		hash:     [2][]uint64{make([]uint64, n), make([]uint64, n)},
		hashDone: [2][]uint64{make([]uint64, words), make([]uint64, words)},
	}
}

// newCacheMemo returns a memo of 2^bits slots (about 25 bytes each),
// which should be more than the links a walk can take (maxDepth), so
// that each walk finds what the walks before it left behind.
func newCacheMemo(bits int) *sortMemo {
	m := newSortMemo(1 << bits)
	m.tags = make([]btf.TypeID, 1<<bits)
	m.shift = uint8(32 - bits)
	return m
}

// slot returns the slot of id, and whether it holds id.
func (m *sortMemo) slot(id btf.TypeID) (uint32, bool) {
	if m.tags == nil {
		return uint32(id), int(id) < len(m.rank)
	}
	s := uint32(id) * 0x9e3779b1 >> m.shift // Fibonacci hashing
	return s, m.tags[s] == id
}

// claim returns the slot of id, emptied first if it held another type;
// false for an id past a dense memo.
func (m *sortMemo) claim(id btf.TypeID) (uint32, bool) {
	if m.tags == nil {
		return uint32(id), int(id) < len(m.rank)
	}
	return m.take(id), true
}

// take is claim with tags; not inlined, so that claim and the setters
// are, for a dense memo.
//
//go:noinline
func (m *sortMemo) take(id btf.TypeID) uint32 {
	s := uint32(id) * 0x9e3779b1 >> m.shift
	if m.tags[s] != id {
		m.tags[s] = id
		m.rank[s] = 0
		for _, bits := range [][]uint64{m.nameDone, m.hashDone[0], m.hashDone[1]} {
			bits[s/64] &^= 1 << (s % 64)
		}
	}
	return s
}

func isSet(bits []uint64, s uint32) bool { return bits[s/64]&(1<<(s%64)) != 0 }
func set(bits []uint64, s uint32)        { bits[s/64] |= 1 << (s % 64) }

func (m *sortMemo) rankOf(id btf.TypeID) (uint8, bool) {
	s, ok := m.slot(id)
	if ok && m.rank[s] != 0 {
		return m.rank[s] - 1, true
	}
	return 0, false
}

func (m *sortMemo) setRank(id btf.TypeID, r uint8) {
	if s, ok := m.claim(id); ok {
		m.rank[s] = r + 1
	}
}

func (m *sortMemo) nameOf(id btf.TypeID) (uint32, bool) {
	s, ok := m.slot(id)
	if ok && isSet(m.nameDone, s) {
		return m.name[s], true
	}
	return 0, false
}

func (m *sortMemo) setName(id btf.TypeID, off uint32) {
	if s, ok := m.claim(id); ok {
		m.name[s] = off
		set(m.nameDone, s)
	}
}

func (m *sortMemo) hashOf(id btf.TypeID, i int) (uint64, bool) {
	s, ok := m.slot(id)
	if ok && isSet(m.hashDone[i], s) {
		return m.hash[i][s], true
	}
	return 0, false
}

func (m *sortMemo) setHash(id btf.TypeID, i int, h uint64) {
	if s, ok := m.claim(id); ok {
		m.hash[i][s] = h
		set(m.hashDone[i], s)
	}
}
