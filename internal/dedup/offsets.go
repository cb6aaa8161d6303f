package dedup

import "math"

// offsets holds the word offsets of records, one more than there are
// records (the first is 0), in about half the memory of one uint32 each,
// since a vmlinux's millions of encoded types need them at the encoder's
// peak. Per block of 64 entries base holds the first one's
// value, and rel each entry's distance from it in 16 bits. A block whose
// distances do not fit (it holds a record of thousands of members) keeps
// its values whole in wide, and its base entry says where.
type offsets struct {
	base []uint32 // per block: its first value, or wideBit | index in wide
	rel  []uint16 // per entry, in the Merger's mapping if it has one
	wide [][]uint32
}

const (
	blockShift = 6
	blockLen   = 1 << blockShift
	// wideBit marks a wide block in base; offsets stay below it (8 GiB of
	// records), which wordRoom checks.
	wideBit = 1 << 31
)

func (o *offsets) len() int { return len(o.rel) }

// at returns entry i.
func (o *offsets) at(i uint32) uint32 {
	b := o.base[i>>blockShift]
	if b&wideBit == 0 {
		return b + uint32(o.rel[i])
	}
	return o.wide[b&^wideBit][i&(blockLen-1)]
}

// push appends v, which is below wideBit and not below the last entry.
func (o *offsets) push(v uint32) {
	i := len(o.rel)
	if i&(blockLen-1) == 0 {
		o.base = append(o.base, v)
		o.rel = append(o.rel, 0)
		return
	}
	blk := i >> blockShift
	b := o.base[blk]
	switch {
	case b&wideBit != 0:
		o.wide[b&^wideBit] = append(o.wide[b&^wideBit], v)
	case v-b > math.MaxUint16:
		w := make([]uint32, 0, blockLen)
		for j := blk << blockShift; j < i; j++ {
			w = append(w, b+uint32(o.rel[j]))
		}
		o.base[blk] = wideBit | uint32(len(o.wide))
		o.wide = append(o.wide, append(w, v))
	default:
		o.rel = append(o.rel, uint16(v-b))
		return
	}
	o.rel = append(o.rel, 0)
}

// truncate keeps the first n entries (n >= 1).
func (o *offsets) truncate(n int) {
	blocks := (n + blockLen - 1) >> blockShift
	keepWide := len(o.wide)
	for _, b := range o.base[blocks:] {
		if b&wideBit != 0 {
			keepWide = min(keepWide, int(b&^wideBit))
		}
	}
	clear(o.wide[keepWide:])
	o.wide = o.wide[:keepWide]
	o.base = o.base[:blocks]
	if b := o.base[blocks-1]; b&wideBit != 0 {
		o.wide[b&^wideBit] = o.wide[b&^wideBit][:n-(blocks-1)<<blockShift]
	}
	o.rel = o.rel[:n]
}
