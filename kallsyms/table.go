package kallsyms

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unsafe"
)

// table holds the symbols of one module, sorted by address, in compact
// immutable form. It is built once by a builder and then only read, so any
// number of goroutines may use it.
//
// Layout, per entry: an address (uint32 offset from base, or a full uint64
// in wide when the module spans 4 GiB or more) and one meta byte. The meta
// byte's low 7 bits are the length of the encoded name (names.go) in blob,
// or lenEscape when a uvarint length precedes the name there (long names and
// names with escaped bytes). Bit 7 says a hidden __pfx_ padding symbol,
// named "__pfx_" + the entry's name, starts pfxGap bytes before the entry:
// the kernel emits one before most functions, and hiding them costs one bit
// instead of a name and an address.
//
// Entries are grouped in blocks of markStride, each holding the entries'
// addresses, meta bytes and the blob offset of its first name, so that a
// lookup touches one cache line for all three. A name is found by summing
// at most markStride-1 meta lengths from its block's offset.
type table struct {
	name   string
	base   uint64
	n      int
	blocks []block
	wide   []uint64
	blob   []byte
	types  []byte // kallsyms type letters, only with Options.Data
	hidden int    // number of hidden __pfx_ symbols

	// index[k] is the first entry whose offset from base is >= k<<shift;
	// nil for small tables, which use a plain binary search.
	index []uint32
	shift uint8
}

const (
	pfxBit     = 0x80
	lenMask    = 0x7f
	lenEscape  = 0x7f
	pfxGap     = 16
	pfxPrefix  = "__pfx_"
	markStride = 8
)

// block holds markStride entries of a table.
type block struct {
	addrs [markStride]uint32 // offsets from base (unused for wide tables)
	off   uint32             // blob offset of the first entry's name
	meta  [markStride]uint8
}

// metaAt returns the meta byte of entry i.
func (t *table) metaAt(i int) uint8 { return t.blocks[i/markStride].meta[i%markStride] }

// len returns the number of stored entries (hidden __pfx_ symbols excluded).
func (t *table) len() int { return t.n }

// symbols returns the number of symbols, hidden __pfx_ ones included.
func (t *table) symbols() int { return t.n + t.hidden }

// addr returns the address of entry i.
func (t *table) addr(i int) uint64 {
	if t.wide != nil {
		return t.wide[i]
	}
	return t.base + uint64(t.blocks[i/markStride].addrs[i%markStride])
}

// start returns the lowest symbol address of the table; ok is false when it
// has no symbols.
func (t *table) start() (uint64, bool) {
	if t.len() == 0 {
		return 0, false
	}
	a := t.addr(0)
	if t.metaAt(0)&pfxBit != 0 {
		a -= pfxGap
	}
	return a, true
}

// last returns the highest symbol address of the table.
func (t *table) last() (uint64, bool) {
	if t.len() == 0 {
		return 0, false
	}
	return t.addr(t.len() - 1), true
}

// skip returns the blob offset after the name at off with meta m.
func (t *table) skip(off int, m uint8) int {
	if l := int(m & lenMask); l != lenEscape {
		return off + l
	}
	n, k := binary.Uvarint(t.blob[off:])
	return off + k + int(n)
}

// nameAt returns the encoded name of the entry whose name starts at off.
func (t *table) nameAt(off int, m uint8) []byte {
	if l := int(m & lenMask); l != lenEscape {
		return t.blob[off : off+l]
	}
	n, k := binary.Uvarint(t.blob[off:])
	return t.blob[off+k : off+k+int(n)]
}

// encName returns the encoded name of entry i.
//
// Guarded by BenchmarkKallsyms/Lookup.
func (t *table) encName(i int) ([]byte, uint8) {
	b := &t.blocks[i/markStride]
	off := int(b.off)
	for _, m := range b.meta[:i%markStride] {
		off = t.skip(off, m)
	}
	m := b.meta[i%markStride]
	return t.nameAt(off, m), m
}

// hit is one symbol of a table: entry idx, or the hidden __pfx_ symbol
// before it when pfx is set. idx is -1 for "inside the module, before its
// first symbol".
type hit struct {
	idx   int
	pfx   bool
	start uint64
}

// find returns the symbol with the greatest start <= a; among symbols with
// equal starts, the first in file order. ok is false when every symbol
// starts above a.
//
// Guarded by BenchmarkKallsyms/Lookup.
func (t *table) find(a uint64) (hit, bool) {
	n := t.len()
	if n == 0 || a < t.base {
		return hit{}, false
	}
	j := t.upper(a) // first entry with address > a
	if j < n && t.metaAt(j)&pfxBit != 0 && a >= t.addr(j)-pfxGap {
		return hit{idx: j, pfx: true, start: t.addr(j) - pfxGap}, true
	}
	if j == 0 {
		return hit{}, false
	}
	i := j - 1
	at := t.addr(i)
	for i > 0 && t.addr(i-1) == at {
		i--
	}
	return hit{idx: i, start: at}, true
}

// upper returns the index of the first entry whose address is > a, for
// a >= t.base.
func (t *table) upper(a uint64) int {
	if t.wide != nil {
		i, found := slices.BinarySearch(t.wide, a)
		for found && i < len(t.wide) && t.wide[i] == a {
			i++
		}
		return i
	}
	off := a - t.base
	if off > 1<<32-1 {
		return t.n
	}
	o := uint32(off)
	lo, hi := 0, t.n
	if t.index != nil {
		k := int(off >> t.shift)
		if k < len(t.index) {
			lo = int(t.index[k])
			if k+1 < len(t.index) {
				hi = int(t.index[k+1])
			}
		} else {
			lo = int(t.index[len(t.index)-1])
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.blocks[m/markStride].addrs[m%markStride] <= o {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// symbolName returns the name of the symbol h as a new string.
func (t *table) symbolName(h hit) string {
	enc, m := t.encName(h.idx)
	prefix := ""
	if h.pfx {
		prefix = pfxPrefix
	}
	return names.decode(prefix, enc, m&lenMask != lenEscape)
}

// typeOf returns the kallsyms type letter of h, or 0 without Options.Data.
func (t *table) typeOf(h hit) byte {
	if t.types == nil || h.idx < 0 {
		return 0
	}
	return t.types[h.idx]
}

// equal reports whether t and u hold the same symbols, so that a reload may
// keep u in place of t.
func (t *table) equal(u *table) bool {
	return t.name == u.name && t.base == u.base && t.hidden == u.hidden &&
		slices.Equal(t.blocks, u.blocks) && slices.Equal(t.wide, u.wide) &&
		bytes.Equal(t.blob, u.blob) &&
		bytes.Equal(t.types, u.types)
}

// bytes returns the heap bytes the table retains.
func (t *table) bytes() int {
	return int(unsafe.Sizeof(*t)) + len(t.name) +
		int(unsafe.Sizeof(block{}))*cap(t.blocks) + 8*cap(t.wide) +
		cap(t.blob) + cap(t.types) + 4*cap(t.index)
}
