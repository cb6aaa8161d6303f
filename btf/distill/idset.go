package distill

import "math/bits"

// baseIDs is what Distill keeps for each base type: two bits, whether the
// split needs it and whether it goes into the distilled base, and, once
// both are known, a count per 64 ids of the types of each sort below, from
// which a needed type's new id follows. A base type that no split type
// reaches costs two bits, not a table entry.
type baseIDs struct {
	needed, toBase []uint64
	// rankBase[w] and rankMoved[w] count the needed base types below id
	// 64*w that go into the distilled base and into the new split.
	rankBase, rankMoved []uint32
	// rankNeeded[w] counts the needed base types below id 64*w.
	rankNeeded []uint32
}

func newBaseIDs(n uint32) baseIDs {
	w := (n + 63) / 64
	return baseIDs{needed: make([]uint64, w), toBase: make([]uint64, w)}
}

// isNeeded reports whether base type id is needed.
func (b *baseIDs) isNeeded(id uint32) bool { return b.needed[id/64]&(1<<(id%64)) != 0 }

// need marks base type id as needed.
func (b *baseIDs) need(id uint32) { b.needed[id/64] |= 1 << (id % 64) }

// keep marks needed base type id as one that goes into the distilled base.
func (b *baseIDs) keep(id uint32) { b.toBase[id/64] |= 1 << (id % 64) }

// each calls f with every needed base type's id, in increasing order,
// until f returns an error.
func (b *baseIDs) each(f func(id uint32) error) error {
	for w, word := range b.needed {
		for ; word != 0; word &= word - 1 {
			if err := f(uint32(w*64 + bits.TrailingZeros64(word))); err != nil {
				return err
			}
		}
	}
	return nil
}

// countNeeded fills the counts that neededRank reads, once every needed
// type is marked, and returns the number of needed types.
func (b *baseIDs) countNeeded() int {
	b.rankNeeded = make([]uint32, len(b.needed))
	var n uint32
	for w, word := range b.needed {
		b.rankNeeded[w] = n
		n += uint32(bits.OnesCount64(word))
	}
	return int(n)
}

// neededRank returns the number of needed base types below id.
func (b *baseIDs) neededRank(id uint32) uint32 {
	w := id / 64
	return b.rankNeeded[w] + uint32(bits.OnesCount64(b.needed[w]&(uint64(1)<<(id%64)-1)))
}

// rank fills the counts that newID reads: once every needed type that goes
// into the distilled base is kept.
func (b *baseIDs) rank() {
	b.rankBase = make([]uint32, len(b.needed))
	b.rankMoved = make([]uint32, len(b.needed))
	var kept, moved uint32
	for w, word := range b.needed {
		b.rankBase[w], b.rankMoved[w] = kept, moved
		kept += uint32(bits.OnesCount64(b.toBase[w]))
		moved += uint32(bits.OnesCount64(word &^ b.toBase[w]))
	}
}

// inBase reports whether needed base type id goes into the distilled base,
// and its rank among those that go where it goes: its new id is 1 (void)
// plus that rank in the distilled base, or the new split's first moved
// type's id plus that rank.
func (b *baseIDs) inBase(id uint32) (kept bool, rank uint32) {
	w, bit := id/64, uint64(1)<<(id%64)
	below := bit - 1
	if b.toBase[w]&bit != 0 {
		return true, b.rankBase[w] + uint32(bits.OnesCount64(b.toBase[w]&below))
	}
	return false, b.rankMoved[w] + uint32(bits.OnesCount64(b.needed[w]&^b.toBase[w]&below))
}
