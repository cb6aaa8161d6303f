package cdump

import "github.com/kmeta-dev/kmeta/btf"

// sortMemo keeps, while sorting, what the walks along chains of typedefs,
// qualifiers, pointers and arrays found, so that each link is walked once
// whatever the number of types that lead through it: without it, a chain
// of n typedefs costs n²/2 steps.
//
// It is dense, about 21 bytes for every type, when the whole sort fits
// in one window (sortKeys), and otherwise a cache of a fixed size indexed
// by a hash of the id (cacheMemo), which the types' walks share: a type
// whose entry another took is walked again, which costs time, never a
// different result.
type sortMemo struct {
	// Dense, by id.
	rank     []uint8  // rankNamed + 1; 0 until known
	name     []uint32 // sortNameRef
	nameDone []uint64 // a bit per type: name is known
	hash     [2][]uint64
	hashDone [2][]uint64 // a bit per type: hash[members] is known

	cache []memoEntry // if not nil, instead of the dense slices
	shift uint8       // 32 - log2(len(cache))
}

// memoEntry is what a cacheMemo knows of type id.
type memoEntry struct {
	id   btf.TypeID
	name uint32
	hash [2]uint64
	rank uint8 // rankNamed + 1; 0 until known
	done uint8 // memoName, and memoHash << members
}

const (
	memoName = 1 << iota
	memoHash // hash[0]; hash[1] is memoHash << 1
)

func newSortMemo(n int) *sortMemo {
	words := (n + 63) / 64
	return &sortMemo{
		rank: make([]uint8, n), name: make([]uint32, n), nameDone: make([]uint64, words),
		hash:     [2][]uint64{make([]uint64, n), make([]uint64, n)},
		hashDone: [2][]uint64{make([]uint64, words), make([]uint64, words)},
	}
}

// cacheBits sets the size of a cacheMemo: 2^cacheBits entries of 32
// bytes, more than the links a walk can take (maxDepth), so that each
// walk finds what the walks before it left behind.
const cacheBits = 16

func newCacheMemo() *sortMemo {
	return &sortMemo{cache: make([]memoEntry, 1<<cacheBits), shift: 32 - cacheBits}
}

// entry returns the cache entry of id, and whether it holds id.
func (m *sortMemo) entry(id btf.TypeID) (*memoEntry, bool) {
	e := &m.cache[uint32(id)*0x9e3779b1>>m.shift] // Fibonacci hashing
	return e, e.id == id
}

// claim returns the cache entry of id, emptied if it held another type.
func (m *sortMemo) claim(id btf.TypeID) *memoEntry {
	e, ok := m.entry(id)
	if !ok {
		*e = memoEntry{id: id}
	}
	return e
}

func isSet(bits []uint64, id btf.TypeID) bool { return bits[id/64]&(1<<(id%64)) != 0 }
func set(bits []uint64, id btf.TypeID)        { bits[id/64] |= 1 << (id % 64) }

func (m *sortMemo) rankOf(id btf.TypeID) (uint8, bool) {
	if m.cache != nil {
		e, ok := m.entry(id)
		return e.rank - 1, ok && e.rank != 0
	}
	if int(id) < len(m.rank) && m.rank[id] != 0 {
		return m.rank[id] - 1, true
	}
	return 0, false
}

func (m *sortMemo) setRank(id btf.TypeID, r uint8) {
	if m.cache != nil {
		m.claim(id).rank = r + 1
	} else if int(id) < len(m.rank) {
		m.rank[id] = r + 1
	}
}

func (m *sortMemo) nameOf(id btf.TypeID) (uint32, bool) {
	if m.cache != nil {
		e, ok := m.entry(id)
		return e.name, ok && e.done&memoName != 0
	}
	if int(id) < len(m.name) && isSet(m.nameDone, id) {
		return m.name[id], true
	}
	return 0, false
}

func (m *sortMemo) setName(id btf.TypeID, off uint32) {
	if m.cache != nil {
		e := m.claim(id)
		e.name = off
		e.done |= memoName
	} else if int(id) < len(m.name) {
		m.name[id] = off
		set(m.nameDone, id)
	}
}

func (m *sortMemo) hashOf(id btf.TypeID, members bool) (uint64, bool) {
	i := b2i(members)
	if m.cache != nil {
		e, ok := m.entry(id)
		return e.hash[i], ok && e.done&(memoHash<<i) != 0
	}
	if int(id) < len(m.hash[i]) && isSet(m.hashDone[i], id) {
		return m.hash[i][id], true
	}
	return 0, false
}

func (m *sortMemo) setHash(id btf.TypeID, members bool, h uint64) {
	i := b2i(members)
	if m.cache != nil {
		e := m.claim(id)
		e.hash[i] = h
		e.done |= memoHash << i
	} else if int(id) < len(m.hash[i]) {
		m.hash[i][id] = h
		set(m.hashDone[i], id)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
