package builder

import (
	"math/bits"

	"github.com/kmeta-dev/kmeta/btf"
)

// bitset is a set of type indexes, one bit each.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (s bitset) has(i uint32) bool { return s[i/64]>>(i%64)&1 != 0 }
func (s bitset) set(i uint32)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) unset(i uint32)    { s[i/64] &^= 1 << (i % 64) }

// ranks returns, for every word of s, the number of bits set in the words
// before it, and the total.
func (s bitset) ranks() ([]uint32, uint32) {
	prefix := make([]uint32, len(s))
	n := uint32(0)
	for w, word := range s {
		prefix[w] = n
		n += uint32(bits.OnesCount64(word))
	}
	return prefix, n
}

// rank returns the number of bits set in s below i, given s.ranks().
func (s bitset) rank(prefix []uint32, i uint32) uint32 {
	return prefix[i/64] + uint32(bits.OnesCount64(s[i/64]&(1<<(i%64)-1)))
}

// idMap maps the own types of a source (by index: id minus the Spec's
// first id) to their Builder ids.
//
// A source's first copy leaves the map in rank form: that copy numbered its
// types consecutively in index order, so a set of the types copied and the
// first id say it all. The set costs one bit per source type instead of
// four bytes, which matters because Minimal copies a few percent of a large
// Spec into a fresh Builder: allocating, zeroing and reading a table of
// every source type was most of its cost. A second copy from the same
// source turns the map dense.
type idMap struct {
	// Dense form.
	dense []btf.TypeID // Builder id of each type copied whole; 0 = none
	fwds  []btf.TypeID // FWD standing for a struct or union; nil if none

	// Rank form, when dense is nil.
	numbered bitset     // types with an id, whole or a FWD
	fwdBits  bitset     // those written as a FWD; nil if none
	prefix   []uint32   // numbered.ranks()
	first    btf.TypeID // id of the first type in numbered
	every    bool       // numbered holds every type: type i is first+i
}

// empty reports whether no type has an id.
func (m *idMap) empty() bool { return m.dense == nil && m.numbered == nil }

// id returns the Builder id of type i: its whole copy, else its FWD, else 0.
func (m *idMap) id(i uint32) btf.TypeID {
	if m.dense != nil {
		if id := m.dense[i]; id != 0 || m.fwds == nil {
			return id
		}
		return m.fwds[i]
	}
	if m.every {
		return m.first + btf.TypeID(i)
	}
	if m.numbered == nil || !m.numbered.has(i) {
		return 0
	}
	return m.first + btf.TypeID(m.numbered.rank(m.prefix, i))
}

// whole reports whether type i was copied whole (not as a FWD).
func (m *idMap) whole(i uint32) bool {
	if m.dense != nil {
		return m.dense[i] != 0
	}
	return m.numbered != nil && m.numbered.has(i) && (m.fwdBits == nil || !m.fwdBits.has(i))
}

// densify turns the map, for a source of n types, into the dense form.
func (m *idMap) densify(n int) {
	if m.dense != nil {
		return
	}
	m.dense = make([]btf.TypeID, n)
	id := m.first
	for w, word := range m.numbered {
		for ; word != 0; word &= word - 1 {
			i := uint32(w*64 + bits.TrailingZeros64(word))
			if m.fwdBits != nil && m.fwdBits.has(i) {
				if m.fwds == nil {
					m.fwds = make([]btf.TypeID, n)
				}
				m.fwds[i] = id
			} else {
				m.dense[i] = id
			}
			id++
		}
	}
	m.numbered, m.fwdBits, m.prefix, m.every = nil, nil, nil, false
}
