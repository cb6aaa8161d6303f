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
// Per entry it stores an address, an encoded name (names.go) and a flag
// saying that a hidden __pfx_ padding symbol, named "__pfx_" + the entry's
// name, starts pfxGap bytes before the entry: the kernel emits one before
// most functions, and hiding them costs one bit instead of a name and an
// address.
//
// Entries are grouped in blocks of at most markStride, each described by
// one hdrSize-byte header (see header) in hdrs, a cache line of its own:
// a lookup reads the index, one header and the name, three cache lines
// whose addresses depend on each other in that order and on nothing else.
// A block ends early where its next entry would lie too far from its
// start for a 16-bit lane. The names of all entries lie back to back in
// names.
//
// A table whose addresses span 2 GiB or more is wide: its addresses are
// in wide, and its headers' lanes are all padding.
type table struct {
	name   string
	base   uint64
	n      int
	hdrs   []byte // nb headers, 64-byte aligned, followed by at least 64 bytes
	names  []byte
	hidden int32 // number of hidden __pfx_ symbols
	anon   int32 // number of anonymous ends of text (textend.go)

	// index[k] tells which block holds the offsets from base in [k<<shift,
	// (k+1)<<shift) (see the index entry's constants). index is nil for
	// tables of at most four blocks or too sparse for a compact index (see
	// buildIndex), which binary-search all blocks.
	index []uint32
	shift uint8

	// narrow is padAddr for a table that is neither empty nor wide, else
	// 0: find handles offsets from base below it.
	narrow uint64

	x *tableRare // nil for most tables (a module's table costs its struct)
}

// tableRare holds what few tables have.
type tableRare struct {
	wide  []uint64
	types []byte // kallsyms type letters, only with Options.Data
	// end is where the table's last symbol ends when its length is known
	// (the BPF table patched by ksymbol events), else 0.
	end uint64
}

// rare returns t.x, made if t has none.
func (t *table) rare() *tableRare {
	if t.x == nil {
		t.x = &tableRare{}
	}
	return t.x
}

// wide returns the addresses of a wide table, else nil.
func (t *table) wide() []uint64 {
	if t.x == nil {
		return nil
	}
	return t.x.wide
}

// types returns the type letters of a table loaded with Options.Data,
// else nil.
func (t *table) types() []byte {
	if t.x == nil {
		return nil
	}
	return t.x.types
}

// end returns where the last symbol ends when its length is known, else 0.
func (t *table) end() uint64 {
	if t.x == nil {
		return 0
	}
	return t.x.end
}

const (
	pfxGap     = 16
	pfxPrefix  = "__pfx_"
	markStride = 12
	padAddr    = 1<<31 - 1 // offsets from base at or above it make a table wide

	hdrSize    = 64     // bytes of a block header: one cache line
	startOff   = 0      // header offsets, see header
	namesOff   = 4      //
	entryOff   = 8      //
	flagsOff   = 12     //
	boundsOff  = 14     //
	lanesOff   = 40     //
	laneMax    = 0x7ffe // the highest lane value of an entry
	lanePad    = 0x7fff // the lane value of an unused slot
	dupFlag    = 1 << 15
	endFlag    = 1 << 14   // (above the pfx bits of markStride+1 slots)
	blockNames = 1<<16 - 1 // the most name bytes a block may hold
)

// An index entry holds, for bucket k (offsets from base in [k<<shift,
// (k+1)<<shift), the last bucket also everything above), the number b of
// the last block whose start is <= k<<shift (block 0 if none) in its low
// 16 bits; in bits 16-30, split: how far into the bucket block b+1 starts,
// or noSplit if it does not start in the bucket; and denseBit when more
// blocks than b+1 start in the bucket. An offset o of the bucket thus lies
// in block b, or in b+1 when o-k<<shift >= split, unless the bucket is
// dense. shift is at most maxShift, so that split fits.
const (
	blockMask = 1<<16 - 1
	splitOff  = 16
	noSplit   = 1<<15 - 1
	denseBit  = 1 << 31
	maxShift  = 14
)

// A header describes one block of at most markStride entries, with fields
// in the machine's byte order (binary.NativeEndian):
//
//	startOff:  uint32, the block's start S as an offset from base: its
//	           first entry's address, less pfxGap when that entry has a
//	           hidden __pfx_ symbol (0 in a wide table)
//	namesOff:  uint32, the offset in names of the block's first name
//	entryOff:  uint32, the index of the block's first entry
//	flagsOff:  uint16, bit k set when entry k has a hidden __pfx_ symbol,
//	           dupFlag when the first entry has the address of the
//	           previous block's last entry, and endFlag when the first
//	           entry is an end of text (textend.go)
//	boundsOff: markStride+1 uint16 name bounds, relative to the block's
//	           first name: 0, then the end of each slot's name (unused
//	           slots repeat the last end), so that slot k's name lies
//	           between bounds k and k+1, which one 32-bit load reads
//	lanesOff:  markStride uint16 lanes: each entry's address less S, at
//	           most laneMax; lanePad in unused slots and in wide tables
//
// Entries' lanes are sorted and below the padding, so counting the lanes
// <= an offset finds its entry without a branch (see countLanes).
type header [hdrSize]byte

// Headers are in binary.NativeEndian, the machine's own byte order, so
// that find reads their fields with plain loads (load16, load32, load64).
// (A package variable holding it would need an init function, which
// every kmeta command runs: cmd/kmeta/BENCH.md.)

// load16 returns the native-endian uint16 at byte offset i of the header
// at h, without a bounds check: i+2 must be at most hdrSize, or the header
// must be one of a table's (hdrs has 64 more bytes after the last).
func load16(h unsafe.Pointer, i uintptr) uint32 { return uint32(*(*uint16)(unsafe.Add(h, i))) }

// load32 returns the native-endian uint32 at byte offset i of the header
// at h, without a bounds check: i+4 must be at most hdrSize.
func load32(h unsafe.Pointer, i uintptr) uint32 { return *(*uint32)(unsafe.Add(h, i)) }

// load64 returns the native-endian uint64 at byte offset i of the header
// at h, without a bounds check: i+8 must be at most hdrSize.
func load64(h unsafe.Pointer, i uintptr) uint64 { return *(*uint64)(unsafe.Add(h, i)) }

func (h *header) start() uint32   { return binary.NativeEndian.Uint32(h[startOff:]) }
func (h *header) namesAt() uint32 { return binary.NativeEndian.Uint32(h[namesOff:]) }
func (h *header) entry() int      { return int(binary.NativeEndian.Uint32(h[entryOff:])) }
func (h *header) flags() uint16   { return binary.NativeEndian.Uint16(h[flagsOff:]) }

// lane returns slot k's lane.
func (h *header) lane(k int) uint32 { return uint32(binary.NativeEndian.Uint16(h[lanesOff+2*k:])) }

// pfx reports whether the entry of slot k has a hidden __pfx_ symbol.
func (h *header) pfx(k int) bool { return h.flags()>>k&1 != 0 }

// name returns where the name of slot k lies in names (see nameLoc).
func (h *header) name(k int) uint64 {
	return nameLoc(h.namesAt(), binary.NativeEndian.Uint32(h[boundsOff+2*k:]))
}

// nameLoc returns where the name between the two bounds in b (the lower
// in the low 16 bits) of a block whose names start at offset n lies in
// names: its offset << 16 | its length.
func nameLoc(n, b uint32) uint64 {
	start, end := b&0xffff, b>>16
	return uint64(n+start)<<16 | uint64(end-start)
}

// nblocks returns the number of blocks.
func (t *table) nblocks() int { return len(t.hdrs) / hdrSize }

// hdr returns the header of block b.
func (t *table) hdr(b int) *header { return (*header)(t.hdrs[b*hdrSize : (b+1)*hdrSize]) }

// blockLen returns the number of entries of block b.
func (t *table) blockLen(b int) int {
	if b+1 < t.nblocks() {
		return t.hdr(b+1).entry() - t.hdr(b).entry()
	}
	return t.n - t.hdr(b).entry()
}

// blockOf returns the block holding entry i and i's slot in it.
func (t *table) blockOf(i int) (b, k int) {
	lo, hi := 0, t.nblocks()-1
	for lo < hi {
		m := int(uint(lo+hi+1) >> 1)
		if t.hdr(m).entry() <= i {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo, i - t.hdr(lo).entry()
}

// pfxAt reports whether entry i has a hidden __pfx_ symbol.
func (t *table) pfxAt(i int) bool {
	b, k := t.blockOf(i)
	return t.hdr(b).pfx(k)
}

// len returns the number of stored entries (hidden __pfx_ symbols excluded).
func (t *table) len() int { return t.n }

// symbols returns the number of symbols, hidden __pfx_ ones included and
// anonymous ends of text excluded.
func (t *table) symbols() int { return t.n + int(t.hidden) - int(t.anon) }

// addr returns the address of entry i.
func (t *table) addr(i int) uint64 {
	if w := t.wide(); w != nil {
		return w[i]
	}
	return t.hitAt(i, false).start
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

// last returns the highest symbol address of the table (an anonymous end
// of text is no symbol).
func (t *table) last() (uint64, bool) {
	i := t.len() - 1
	if i > 0 && t.hitAt(i, false).name&0xffff == 0 {
		i-- // (anonymous ends follow a symbol, and never each other)
	}
	if i < 0 {
		return 0, false
	}
	return t.addr(i), true
}

// isEnd reports whether entry i is an end of text.
func (t *table) isEnd(i int) bool {
	b, k := t.blockOf(i)
	return k == 0 && t.hdr(b).flags()&endFlag != 0
}

// nameAt returns the encoded name at loc (see nameLoc).
func (t *table) nameAt(loc uint64) []byte {
	off := int(loc >> 16)
	return t.names[off : off+int(loc&0xffff)]
}

// encName returns the encoded name of the hit's entry.
func (t *table) encName(h hit) []byte { return t.nameAt(h.name) }

// entries yields the hit of every entry but the anonymous ends of text,
// in order, with whether it has a hidden __pfx_ symbol.
func (t *table) entries(yield func(hit, bool) bool) {
	for b := range t.nblocks() {
		h := t.hdr(b)
		for k := range t.blockLen(b) {
			e := t.slotHit(h, k)
			if e.name&0xffff == 0 { // (a symbol's name is never empty)
				continue
			}
			if !yield(e, h.pfx(k)) {
				return
			}
		}
	}
}

// hit is one symbol of a table: entry idx, or the hidden __pfx_ symbol
// before it when pfx is set. idx is -1 (beforeFirst) for "inside the
// module, before its first symbol", and -2 (outsideText) for an address
// at or above an end of text, at start, before the next symbol. name
// locates the entry's encoded name (see nameLoc).
// (A struct of at most four fields stays in registers.)
type hit struct {
	idx   int
	start uint64
	name  uint64
	pfx   bool
}

// The idx of hits that are no symbol's.
const (
	beforeFirst = -1
	outsideText = -2
)

// hitAt returns the hit of entry i, or of its hidden __pfx_ symbol.
func (t *table) hitAt(i int, pfx bool) hit {
	b, k := t.blockOf(i)
	h := t.slotHit(t.hdr(b), k)
	if pfx {
		return pfxHit(h)
	}
	return h
}

// pfxHit returns the hit of the hidden __pfx_ symbol of entry hit h.
func pfxHit(h hit) hit {
	h.pfx, h.start = true, h.start-pfxGap
	return h
}

// slotHit returns the hit of the entry in slot k of the block with header
// h.
func (t *table) slotHit(h *header, k int) hit {
	e := hit{idx: h.entry() + k, name: h.name(k)}
	if w := t.wide(); w != nil {
		e.start = w[e.idx]
	} else {
		e.start = t.base + uint64(h.start()+h.lane(k))
	}
	return e
}

// equal reports whether t and u hold the same symbols, so that a reload may
// keep u in place of t.
func (t *table) equal(u *table) bool {
	return t.name == u.name && t.base == u.base && t.n == u.n && t.hidden == u.hidden && t.end() == u.end() &&
		bytes.Equal(t.hdrs, u.hdrs) && bytes.Equal(t.names, u.names) &&
		slices.Equal(t.wide(), u.wide()) && bytes.Equal(t.types(), u.types())
}

// bytes returns the heap bytes the table retains.
func (t *table) bytes() int {
	n := int(unsafe.Sizeof(*t)) + len(t.name) + cap(t.hdrs) + cap(t.names) +
		8*cap(t.wide()) + cap(t.types()) + 4*cap(t.index)
	if t.x != nil {
		n += int(unsafe.Sizeof(*t.x))
	}
	if t.nblocks() > arenaBlocks { // (a small table's headers share a piece)
		n += 2 * hdrSize // newHeaders' alignment and bytes after the last
	}
	return n
}

// newHeaders returns room for nb headers, aligned to hdrSize, with at
// least hdrSize bytes after them (see load16).
func newHeaders(nb int) []byte {
	buf := make([]byte, (nb+2)*hdrSize)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (hdrSize - 1))
	return buf[skip : skip+nb*hdrSize : skip+nb*hdrSize]
}

// tableArena holds the headers and names of the small tables of one load
// in shared pieces: a module of one symbol would otherwise cost an
// allocation of three headers (for the alignment and the bytes after the
// last) and one of its names. Pieces are small, as a table reused by a
// later load (Options.Reuse) keeps its whole piece alive.
type tableArena struct {
	hdrs, names []byte // the rest of the current pieces
	pieces      int    // pieces made, which double up to the sizes below
}

const (
	arenaHdrs   = 128  // headers in a piece of tableArena.hdrs
	arenaNames  = 4096 // bytes in a piece of tableArena.names
	arenaBlocks = 4    // the most blocks of a table in the arena
)

// grown returns the size of the next piece of at most full: a load of a
// few modules takes little, one of many takes whole pieces.
func (a *tableArena) grown(full int) int {
	a.pieces++
	return full >> max(5-a.pieces, 0)
}

// headers returns room for nb headers as newHeaders does, from a shared
// piece when a is not nil and the table is small.
func (a *tableArena) headers(nb int) []byte {
	if a == nil || nb > arenaBlocks {
		return newHeaders(nb)
	}
	need := nb * hdrSize
	if len(a.hdrs) < need+hdrSize { // (the last hdrSize bytes stay after every header)
		n := max(a.grown(arenaHdrs), arenaBlocks)
		buf := make([]byte, (n+2)*hdrSize)
		skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (hdrSize - 1))
		a.hdrs = buf[skip : skip+(n+1)*hdrSize]
	}
	h := a.hdrs[:need:need]
	a.hdrs = a.hdrs[need:]
	return h
}

// namesOf returns room for n bytes of names, from a shared piece when a
// is not nil and n is small.
func (a *tableArena) namesOf(n int) []byte {
	if a == nil || n > arenaNames/8 {
		return make([]byte, n)
	}
	if len(a.names) < n {
		a.names = make([]byte, max(a.grown(arenaNames), n))
	}
	b := a.names[:n:n]
	a.names = a.names[n:]
	return b
}
