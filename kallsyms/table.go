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
// Per entry it stores an address (a uint32 offset from base, below
// padAddr, or a full uint64 in wide when the module spans 2 GiB or more),
// an encoded name (names.go) and a flag saying that a hidden __pfx_
// padding symbol, named "__pfx_" + the entry's name, starts pfxGap bytes
// before the entry: the kernel emits one before most functions, and hiding
// them costs one bit instead of a name and an address.
//
// Entries are grouped in blocks of markStride, which lie back to back in
// data, block b at offset offs[b]. A block is a hdrSize-byte header (see
// header) followed by the names of its entries in order, so that a lookup
// reads one stretch of adjacent cache lines for an entry and its name: the
// header gives the addresses and where each name starts and ends, with no
// lengths to sum. Unused slots of the last block hold address padAddr and
// an empty name. plain says that no name holds escByte, so that every name
// can be decoded with names.appendPlain.
type table struct {
	name   string
	base   uint64
	n      int
	data   []byte   // the blocks
	offs   []uint32 // data offset of every block
	wide   []uint64
	types  []byte // kallsyms type letters, only with Options.Data
	hidden int    // number of hidden __pfx_ symbols
	plain  bool

	// index[k] tells which block holds the symbol at or before k<<shift and
	// the bucket's next few bytes (see the index entry's constants). index is nil for tables
	// of at most four blocks or too sparse for a compact index (see
	// buildIndex), which binary-search all blocks.
	index []uint32
	shift uint8
}

const (
	pfxGap     = 16
	pfxPrefix  = "__pfx_"
	markStride = 12
	padAddr    = 1<<31 - 1 // see countHalf

	hdrSize  = 84     // bytes of a block header
	numOff   = 52     // offset of the block number in a header
	endsOff  = 56     // offset of the name bounds in a header
	pfxFlag  = 0x8000 // in a name bound
	endMask  = pfxFlag - 1
	dupFlag  = pfxFlag // in bound 0: see header
	nextSlot = markStride
)

// An index entry holds, for bucket k (offsets from base in [k<<shift,
// (k+1)<<shift), the last bucket also everything above), the number b of
// the last block whose first offset is <= k<<shift (block 0 if none) in
// its low 16 bits; in bits 16-30, split: how far into the bucket block b+1
// starts, or noSplit if it does not start in the bucket; and denseBit when
// more blocks than b+1 start in the bucket. An offset o of the bucket thus
// lies in block b, or in b+1 when o-k<<shift >= split, unless the bucket is
// dense. shift is at most maxShift, so that split fits.
const (
	blockMask = 1<<16 - 1
	splitOff  = 16
	noSplit   = 1<<15 - 1
	denseBit  = 1 << 31
	maxShift  = 14
)

// header is the start of a block, with fields in the machine's byte order
// (ne):
//
//	0:        addrs, markStride+1 uint32 address offsets from base: the
//	          block's entries (padAddr in unused slots and in wide
//	          tables), then the next block's first entry (padAddr if
//	          none), so that an address past the block's last entry needs
//	          no other block
//	numOff:   the block's number, uint32
//	endsOff:  markStride+2 uint16 name bounds: the block offset of the
//	          first name (hdrSize), then the block offset of the end of
//	          each slot's name, ORed with pfxFlag when the slot's entry has
//	          a hidden __pfx_ symbol; the last bound only carries that flag,
//	          for the next block's first entry (slot nextSlot). Bound 0 has
//	          dupFlag when the block's first entry has the address of the
//	          previous block's last entry.
//
// The name of slot k thus lies between bounds k and k+1: a block's names
// take at most 12 * 2 * MaxNameLen bytes, which fit in 15 bits.
type header [hdrSize]byte

// addr returns the address offset of slot k (the next block's first entry
// for nextSlot).
func (h *header) addr(k int) uint32 { return ne.Uint32(h[4*k:]) }

// ne is the byte order of headers: the machine's own, so that find reads
// their fields with plain loads (load32, load64).
var ne = binary.NativeEndian

// ptr returns the address of the header, for load32 and load64.
func (h *header) ptr() unsafe.Pointer { return unsafe.Pointer(h) }

// load32 returns the native-endian uint32 at byte offset i of the header
// at h, without a bounds check: i+4 must be at most hdrSize.
func load32(h unsafe.Pointer, i uintptr) uint32 { return *(*uint32)(unsafe.Add(h, i)) }

// load64 returns the native-endian uint64 at byte offset i of the header
// at h, without a bounds check: i+8 must be at most hdrSize.
func load64(h unsafe.Pointer, i uintptr) uint64 { return *(*uint64)(unsafe.Add(h, i)) }

// pfx reports whether the entry of slot k has a hidden __pfx_ symbol.
func (h *header) pfx(k int) bool { return h[endsOff+2*k+3]&(pfxFlag>>8) != 0 }

// hdr returns the header of the block at data offset o.
func (t *table) hdr(o int) *header { return (*header)(t.data[o : o+hdrSize]) }

// blockOf returns the data offset of the block holding entry i.
func (t *table) blockOf(i int) int { return int(t.offs[i/markStride]) }

// pfxAt reports whether entry i has a hidden __pfx_ symbol.
func (t *table) pfxAt(i int) bool { return t.hdr(t.blockOf(i)).pfx(i % markStride) }

// len returns the number of stored entries (hidden __pfx_ symbols excluded).
func (t *table) len() int { return t.n }

// symbols returns the number of symbols, hidden __pfx_ ones included.
func (t *table) symbols() int { return t.n + t.hidden }

// addr returns the address of entry i.
func (t *table) addr(i int) uint64 {
	if t.wide != nil {
		return t.wide[i]
	}
	return t.base + uint64(t.hdr(t.blockOf(i)).addr(i%markStride))
}

// start returns the lowest symbol address of the table; ok is false when it
// has no symbols.
func (t *table) start() (uint64, bool) {
	if t.len() == 0 {
		return 0, false
	}
	a := t.addr(0)
	if t.pfxAt(0) {
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

// name returns where the name of slot k lies in data, for the block at
// data offset o: its offset << 16 | its length.
func (h *header) name(o, k int) uint64 {
	return uint64(o)<<16 + nameLoc(ne.Uint32(h[endsOff+2*k:])) // bounds k and k+1
}

// nameAt returns the encoded name at loc (see header.name).
func (t *table) nameAt(loc uint64) []byte {
	off := int(loc >> 16)
	return t.data[off : off+int(loc&0xffff)]
}

// encName returns the encoded name of the hit's entry.
func (t *table) encName(h hit) []byte { return t.nameAt(h.name) }

// encoded is an entry's encoded name and whether it has a hidden __pfx_
// symbol.
type encoded struct {
	name []byte
	pfx  bool
}

// encodedNames yields every entry's index with its encoded name, in order.
func (t *table) encodedNames(yield func(int, encoded) bool) {
	for b, o := range t.offs {
		h := t.hdr(int(o))
		for k := range min(markStride, t.n-b*markStride) {
			if !yield(b*markStride+k, encoded{t.nameAt(h.name(int(o), k)), h.pfx(k)}) {
				return
			}
		}
	}
}

// hit is one symbol of a table: entry idx, or the hidden __pfx_ symbol
// before it when pfx is set. idx is -1 for "inside the module, before its
// first symbol". name locates the entry's encoded name (see header.name).
// (A struct of at most four fields stays in registers.)
type hit struct {
	idx   int
	start uint64
	name  uint64
	pfx   bool
}

// hitAt returns the hit of entry i, or of its hidden __pfx_ symbol.
func (t *table) hitAt(i int, pfx bool) hit {
	o := t.blockOf(i)
	h := hit{idx: i, start: t.addr(i), name: t.hdr(o).name(o, i%markStride), pfx: pfx}
	if pfx {
		h.start -= pfxGap
	}
	return h
}

// equal reports whether t and u hold the same symbols, so that a reload may
// keep u in place of t.
func (t *table) equal(u *table) bool {
	return t.name == u.name && t.base == u.base && t.n == u.n && t.hidden == u.hidden &&
		bytes.Equal(t.data, u.data) && slices.Equal(t.wide, u.wide) &&
		bytes.Equal(t.types, u.types)
}

// bytes returns the heap bytes the table retains.
func (t *table) bytes() int {
	return int(unsafe.Sizeof(*t)) + len(t.name) + cap(t.data) + 4*cap(t.offs) +
		8*cap(t.wide) + cap(t.types) + 4*cap(t.index)
}
