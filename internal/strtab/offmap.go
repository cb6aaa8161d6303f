package strtab

import "math/bits"

// OffMap maps non-zero uint32 keys to uint32 values, string offsets in one
// space to offsets in another: an open-addressing table of key<<32|value
// words, kept at most half full. The Builder keeps one per source, so
// that a string offset seen before is not hashed again. The zero value is
// an empty map. An OffMap is not safe for concurrent use.
type OffMap struct {
	slots []uint64
	n     int
	shift uint8 // 32 - log2(len(slots))
}

// index hashes key by Fibonacci hashing: the top bits of key times 2^32/phi.
func (c *OffMap) index(key uint32) (uint32, uint32) {
	return (key * 0x9e3779b9) >> c.shift, uint32(len(c.slots) - 1)
}

// Get returns the value of key, or false if it has none.
func (c *OffMap) Get(key uint32) (uint32, bool) {
	if len(c.slots) == 0 {
		return 0, false
	}
	for i, mask := c.index(key); ; i = (i + 1) & mask {
		s := c.slots[i]
		if s == 0 {
			return 0, false
		}
		if uint32(s>>32) == key {
			return uint32(s), true
		}
	}
}

// Reserve sizes the map for n more keys.
func (c *OffMap) Reserve(n int) {
	size := max(1024, len(c.slots))
	for size < 2*(c.n+n) {
		size *= 2
	}
	if size > len(c.slots) {
		c.resize(size)
	}
}

func (c *OffMap) resize(size int) {
	old := c.slots
	c.slots = make([]uint64, size)
	c.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	c.n = 0
	for _, s := range old {
		if s != 0 {
			c.Put(uint32(s>>32), uint32(s))
		}
	}
}

// Put sets the value of key, which must be non-zero and not in the map
// yet.
func (c *OffMap) Put(key, val uint32) {
	if 2*(c.n+1) > len(c.slots) {
		c.resize(max(1024, 2*len(c.slots)))
	}
	for i, mask := c.index(key); ; i = (i + 1) & mask {
		if c.slots[i] == 0 {
			c.slots[i] = uint64(key)<<32 | uint64(val)
			c.n++
			return
		}
	}
}
