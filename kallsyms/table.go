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
// addresses, meta bytes and the blob offset of its first name in exactly one
// 64-byte cache line (big block arrays are page-aligned), so that a lookup
// touches one line for all three. A
// name is found by summing at most markStride-1 meta lengths from its
// block's offset (sumLens). Unused slots of the last block hold address
// padAddr and meta 0.
type table struct {
	name   string
	base   uint64
	n      int
	blocks []block
	wide   []uint64
	blob   []byte
	types  []byte // kallsyms type letters, only with Options.Data
	hidden int    // number of hidden __pfx_ symbols

	// index[k] is the last block whose first offset from base is
	// <= k<<shift (0 if none); nil for tables of at most four or more
	// than 1<<16 blocks, which binary-search all blocks.
	index []uint16
	shift uint8
}

const (
	pfxBit     = 0x80
	lenMask    = 0x7f
	lenEscape  = 0x7f
	pfxGap     = 16
	pfxPrefix  = "__pfx_"
	markStride = 12
	padAddr    = 1<<32 - 1
)

// block holds markStride entries of a table in 64 bytes.
type block struct {
	addrs [markStride]uint32 // offsets from base (unused for wide tables)
	meta  [markStride]uint8
	off   uint32 // blob offset of the first entry's name
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

// encName returns the encoded name of entry i and its meta byte.
//
// Guarded by BenchmarkKallsyms/LookupAppend.
func (t *table) encName(i int) ([]byte, uint8) {
	b := &t.blocks[i/markStride]
	k := i % markStride
	m := b.meta[k]
	off, ok := sumLens(&b.meta, k)
	if !ok { // an escaped length precedes entry i in its block
		p := int(b.off)
		for _, pm := range b.meta[:k] {
			p = t.skip(p, pm)
		}
		off = p - int(b.off)
	}
	off += int(b.off)
	if l := int(m & lenMask); l != lenEscape && off+l <= len(t.blob) {
		return t.blob[off : off+l], m
	}
	return t.nameAt(off, m), m
}

// sumLens returns the sum of the name lengths of meta[:k] with SWAR
// arithmetic, or false when one of them is lenEscape.
func sumLens(meta *[markStride]uint8, k int) (int, bool) {
	const ones, low7 = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	lo := binary.LittleEndian.Uint64(meta[:8])
	hi := uint64(binary.LittleEndian.Uint32(meta[8:]))
	lo &= low7 & (^uint64(0) >> (64 - 8*min(k, 8)))
	hi &= low7 & (^uint64(0) >> (64 - 8*max(k-8, 0)))
	if ((lo+ones)|(hi+ones))&(ones<<7) != 0 {
		return 0, false // a byte is 0x7f: bytes <= 0x7e stay below 0x80
	}
	s := lo + hi // lanes <= 0xfc: no carries
	s = s&0x00ff00ff00ff00ff + s>>8&0x00ff00ff00ff00ff
	return int(s * 0x0001000100010001 >> 48), true
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
// Guarded by BenchmarkKallsyms/LookupAppend.
func (t *table) find(a uint64) (hit, bool) {
	if t.n == 0 || a < t.base {
		return hit{}, false
	}
	off := a - t.base
	if t.wide != nil || off >= padAddr {
		// (only the last block's padding compares above such offsets)
		return t.findWide(a)
	}
	return t.findNarrow(uint32(off))
}

// findWide is find for a wide table, or for an address above every entry
// of a narrow one.
func (t *table) findWide(a uint64) (hit, bool) {
	j := t.n // the first entry whose address is > a
	if t.wide != nil {
		j = t.upperWide(a)
	}
	if j < t.n && t.metaAt(j)&pfxBit != 0 && a >= t.addr(j)-pfxGap {
		return hit{idx: j, pfx: true, start: t.addr(j) - pfxGap}, true
	}
	if j == 0 {
		return hit{}, false
	}
	return t.firstAt(j - 1), true
}

// firstAt returns the hit of the first entry with the address of entry i.
func (t *table) firstAt(i int) hit {
	at := t.addr(i)
	for i > 0 && t.addr(i-1) == at {
		i--
	}
	return hit{idx: i, start: at}
}

// findNarrow is find for an offset o from base in a table that is not
// wide. It works on the one block that holds the answer, with few and
// well-predicted branches.
//
// Guarded by BenchmarkKallsyms/LookupAppend.
func (t *table) findNarrow(o uint32) (hit, bool) {
	lo, hi := 0, len(t.blocks)-1 // the last block whose first address <= o
	if k := int(o >> t.shift); k < len(t.index)-1 {
		lo, hi = int(t.index[k]), int(t.index[k+1])
	} else if t.index != nil {
		lo = int(t.index[len(t.index)-1])
	}
	if hi-lo > 1 { // a dense bucket: binary search
		lo = t.lastBlock(lo, hi, o)
	} else { // at most one block boundary: no branch
		lo += le(t.blocks[hi].addrs[0], o) * (hi - lo)
	}
	// Count the block's addresses <= o without branches, in a tree of
	// independent sums: addresses are sorted and the padding is above o.
	b := &t.blocks[lo]
	x := &b.addrs
	c := ((le(x[0], o) + le(x[1], o)) + (le(x[2], o) + le(x[3], o))) +
		((le(x[4], o) + le(x[5], o)) + (le(x[6], o) + le(x[7], o))) +
		((le(x[8], o) + le(x[9], o)) + (le(x[10], o) + le(x[11], o)))
	j := lo*markStride + c // the first entry above o (padding: meta 0)
	var m uint8
	var at uint32
	if c < markStride {
		m, at = b.meta[c], x[c]
	} else if lo+1 < len(t.blocks) {
		m, at = t.blocks[lo+1].meta[0], t.blocks[lo+1].addrs[0]
	}
	// Whether o is in the hidden __pfx_ symbol before entry j, tested with
	// one well-predicted branch: the pfx bit alone is a coin flip. A pfx
	// entry's offset is >= pfxGap (see builder.add).
	if uint64(m>>7)&b2u(o >= at-pfxGap) != 0 {
		return hit{idx: j, pfx: true, start: t.base + uint64(at-pfxGap)}, true
	}
	if c == 0 { // only in block 0: every entry is above o
		return hit{}, false
	}
	if at = x[c-1]; c > 1 && x[c-2] != at {
		return hit{idx: j - 1, start: t.base + uint64(at)}, true
	}
	return t.firstAt(j - 1), true
}

// lastBlock returns the last block in [lo, hi] whose first address is <= o.
func (t *table) lastBlock(lo, hi int, o uint32) int {
	for lo < hi {
		m := int(uint(lo+hi+1) >> 1)
		if t.blocks[m].addrs[0] <= o {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// upperWide returns the index of the first entry whose address is > a, in
// a wide table.
func (t *table) upperWide(a uint64) int {
	i, found := slices.BinarySearch(t.wide, a)
	for found && i < len(t.wide) && t.wide[i] == a {
		i++
	}
	return i
}

// b2u returns 1 for true and 0 for false, without a branch.
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}

// le returns 1 if x <= o, else 0, without a branch.
func le(x, o uint32) int { return int(1 + (int64(o)-int64(x))>>63) }

// symbolName returns the name of the symbol h as a new string.
func (t *table) symbolName(h hit) string {
	enc, m := t.encName(h.idx)
	prefix := ""
	if h.pfx {
		prefix = pfxPrefix
	}
	return names.decode(prefix, enc, m&lenMask != lenEscape)
}

// appendName appends the name of the symbol h to dst. Names without
// escapes (all kernel names) are decoded here in one pass that copies each
// token as a 16-byte block.
//
// Guarded by BenchmarkKallsyms/LookupAppend.
func (t *table) appendName(dst []byte, h hit) []byte {
	b := &t.blocks[h.idx/markStride]
	k := h.idx % markStride
	l := int(b.meta[k] & lenMask)
	s, ok := sumLens(&b.meta, k)
	off := int(b.off) + s
	if h.pfx {
		dst = append(dst, pfxPrefix...)
	}
	if !ok || l == lenEscape || off+l > len(t.blob) {
		enc, _ := t.encName(h.idx)
		return names.appendDecoded(dst, enc)
	}
	c := names
	dst = slices.Grow(dst, l*maxTokenLen)
	p, buf := len(dst), dst[:cap(dst)]
	for _, e := range t.blob[off : off+l] { // no escByte: see table
		*(*[maxTokenLen]byte)(buf[p : p+maxTokenLen]) = c.blocks[e]
		p += int(c.lens[e])
	}
	return buf[:p]
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
		cap(t.blob) + cap(t.types) + 2*cap(t.index)
}
