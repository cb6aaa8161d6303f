package dedup

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/recenc"
)

// Deferred is a reference that a Unit's record may hold to a type whose id
// is known only when the unit is appended: AddUnit sets it to the id it is
// given. A DWARF encoder's arrays use it for their index type, which the
// first unit that has one defines for all the units after.
const Deferred = recenc.Deferred

// A Unit is a group of types that a producer writes away from the Merger,
// on any goroutine, and that Merger.AddUnit then appends whole: a DWARF
// encoder's compile unit, written by its workers and appended in unit
// order. Writing a Unit does the part of appending that does not depend on
// the types appended before it, as Merger.Prepare does for a Spec: the
// records are laid out as words, each distinct name is hashed once and
// looked up in the base's strings, and the words that AddUnit rewrites
// (names, references to the unit's own types, Deferred) are listed. AddUnit
// is then a copy of the words and the interning of the unit's new strings,
// so the types are written once, in the Merger, and not first into a
// builder.Builder.
//
// The Add methods are builder.Builder's: both write through one record
// encoder (internal/recenc), with the same checks and errors. Here they
// return the id the type will have in the unit's numbering, which starts at the first
// id given to Reset: a reference at or above it is to one of the unit's
// own types and AddUnit renumbers it; a reference below it (void, a base
// type, a type appended before) stays as it is; Deferred is set by
// AddUnit. Names must not hold a NUL byte. A record of elements can also
// be written an element at a time (StartStruct, StartUnion, StartEnum,
// StartEnum64 or StartFuncProto, then Member, Value or Param for each,
// then Finish: internal/recenc's stream.go), by a producer whose elements
// are in tables of its own, without a slice of builder.Member,
// builder.Enumerator or builder.Param for an Add method.
//
// The strings of a unit reach the Merger's string section in the order of
// their first use in its records (each record's name, then its elements'
// names) and of AddString, as libbpf's btf__add_str interns them: the same
// order that AddBuilder gives for a Builder holding the same records.
//
// The strings given to a Unit are known again by their address and
// length, without hashing them, until Reset: a producer that passes
// views of its own bytes as strings (unsafe.String) must not change those
// bytes until then, as for any string.
//
// A Unit is used by one goroutine at a time. After an error from an Add
// method it keeps the error, and AddUnit refuses it until Reset.
type Unit struct {
	m *Merger
	// encoder writes the records (its Words) and gives the Unit its
	// Add methods, the Builder's; the Unit is its Sink (unitSink).
	encoder
	wordInput
	// slots is an open-addressed index of the strings: 1+ their number;
	// views is one of the strings given, by address (see str).
	slots []uint32
	views []viewSlot
	// spos and vpos are the slots in use, for Reset to clear only them.
	spos, vpos []uint32
	// vhits counts the strings found by address since Reset.
	vhits int
	// cache, if not nil, holds keys of strings of a section that earlier
	// units used; soff is each string's offset in that section, or
	// notInCache, as far as the last string in the section (the names of
	// a unit may all be elsewhere: DW_FORM_string). appended tells that
	// keys are the Merger's (AddUnit).
	cache    *NameCache
	next     *NameCache // SetCache's, from the next Reset
	soff     []uint32
	appended bool
	// names and size are GrowNames's bound of the strings still to come,
	// as of len(keys) and len(strs) when it was given, until Reset.
	names, size int
	err         error
	// mem holds the strings' bytes (wordInput.strs) once they pass
	// mmap.MinSlice: grown by remapping, never copied, and costing only
	// the pages written, where a slice on the heap sized for GrowNames's
	// bound (names repeated, counted at each use) was zeroed whole.
	mem *unitMem
}

// unitMem is the mapping of a Unit's strings, freed by Release, or when
// the Unit is garbage.
type unitMem struct{ strs *mmap.Region }

func (m *unitMem) free() { mmap.Free(&m.strs) }

// encoder is the record encoder of Units.
type encoder = recenc.Encoder[builder.Member, builder.Param, builder.Enumerator]

// NewUnit returns an empty Unit for m, numbered from 1 (see Unit.Reset).
// Like Prepare, it is safe for concurrent use with the Merger's methods.
func (m *Merger) NewUnit() *Unit {
	u := &Unit{m: m, mem: new(unitMem)}
	runtime.AddCleanup(u, (*unitMem).free, u.mem)
	u.Init((*unitSink)(u), recenc.Options{NameFirst: true, Deferred: true})
	u.Reset(1)
	return u
}

// NextID returns the id that the next type appended will have.
func (m *Merger) NextID() btf.TypeID { return btf.TypeID(m.d.first + m.d.n()) }

// Reset empties u for a new unit whose first type has the id first in the
// unit's numbering. A producer that writes units before it knows where
// they go numbers them from 1 and refers to no earlier type; one that
// writes a unit on the Merger's goroutine just before appending it can
// number it from Merger.NextID and refer to the types appended before.
//
// If u was appended, Reset first gives the keys of its strings to its
// NameCache, if any (see SetCache).
func (u *Unit) Reset(first btf.TypeID) {
	if c := u.next; u.appended && c != nil && u.cache != nil && c.sameSection(u.cache) {
		c.learn(u)
	}
	u.cache = u.next
	u.appended = false
	u.soff = u.soff[:0]
	u.names, u.size = 0, 0
	u.Words.Reset(uint32(first))
	u.keys, u.strs, u.strEnds = u.keys[:0], u.strs[:0], u.strEnds[:0]
	u.pending, u.err = 0, nil
	if len(u.slots) == 0 {
		u.slots = make([]uint32, 256)
		u.views = make([]viewSlot, 256)
	}
	for _, i := range u.spos {
		u.slots[i] = 0
	}
	for _, i := range u.vpos {
		u.views[i] = viewSlot{}
	}
	u.spos, u.vpos, u.vhits = u.spos[:0], u.vpos[:0], 0
}

// SetCache has u, from its next Reset on, look the strings it is given up
// in c; that Reset also gives c the keys of the strings of the unit u
// held, if it was appended and written with a cache of the same section.
// A producer keeps one NameCache per goroutine and sets it on each Unit
// before writing it. A cache of another Merger is ignored.
func (u *Unit) SetCache(c *NameCache) {
	if c != nil && c.m != u.m {
		c = nil
	}
	u.next = c
}

// A NameCache remembers the Merger's keys of strings of one section (a
// DWARF encoder's .debug_str), which most names of a producer's units are
// views of: a unit writing a name the cache knows writes its key, without
// hashing it, and AddUnit has nothing to do for it. Names keep their
// order in the output: a key the cache knows is of a string the Merger
// holds already. The section must stay mapped, unchanged, while the cache
// is used. A NameCache is used by one goroutine at a time.
type NameCache struct {
	m     *Merger
	sec   []byte
	ents  []cacheEnt // direct-mapped by offset (cacheSlot)
	shift uint8      // 32 less log2(len(ents))
}

type cacheEnt struct{ off1, n, key uint32 } // off1 is 1+ the offset

const (
	cacheBits    = 16 // the most entries: 768 KB
	cacheMinBits = 6
	notInCache   = ^uint32(0)
)

// NewNameCache returns a cache of the keys of strings in sec (none for
// an empty sec, whose strings it never finds: DWARF whose names are all
// inline). It has an entry for each 4 bytes of sec, a power of two from
// 64 to 65,536 entries (768 KB): a string takes at least 2 bytes, its
// NUL included, so the cache has room for half of the most strings sec
// can hold. A cache of the largest size for a small object's section
// cost a page fault for most of its strings, each slot on its own page
// (cmd/kmeta/BENCH.md, "Small objects").
func (m *Merger) NewNameCache(sec []byte) *NameCache {
	c := &NameCache{m: m, sec: sec}
	if len(sec) > 0 {
		bits := cacheMinBits
		for bits < cacheBits && 4<<bits < len(sec) {
			bits++
		}
		c.ents = make([]cacheEnt, 1<<bits)
		c.shift = uint8(32 - bits)
	}
	return c
}

// slot returns the entry of the string at offset off.
// The shift is masked to say it is under 32, which spares each lookup
// Go's test for a shift past the width.
func (c *NameCache) slot(off uint32) *cacheEnt { return &c.ents[off*0x9e3779b1>>(c.shift&31)] }

// offset returns the offset of s in c's section, or notInCache.
func (c *NameCache) offset(p *byte, n int) uint32 {
	if len(c.sec) == 0 {
		return notInCache
	}
	off := uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(&c.sec[0]))
	if off >= uintptr(len(c.sec)) || uintptr(n) > uintptr(len(c.sec))-off || off >= uintptr(notInCache) {
		return notInCache
	}
	return uint32(off)
}

func (c *NameCache) sameSection(d *NameCache) bool {
	return len(c.sec) == len(d.sec) && (len(c.sec) == 0 || &c.sec[0] == &d.sec[0])
}

func (c *NameCache) learn(u *Unit) {
	for j, off := range u.soff {
		if off == notInCache {
			continue
		}
		lo := uint32(0)
		if j > 0 {
			lo = u.strEnds[j-1]
		}
		*c.slot(off) = cacheEnt{off1: off + 1, n: u.strEnds[j] - lo, key: u.keys[j]}
	}
}

// viewSlot is a string given to a Unit, by address: most names are views
// of a DWARF string section, and each recurs many times in a unit.
type viewSlot struct {
	p *byte // keeps the string alive, so that no other takes its address
	n uint32
	j uint32 // the string's number
}

func viewHash(p *byte, n int) uint64 {
	return (uint64(uintptr(unsafe.Pointer(p))) ^ uint64(n)<<40) * 0x9e3779b97f4a7c15
}

// NumTypes returns the number of types written into u.
func (u *Unit) NumTypes() int { return len(u.Ends) }

// LastID returns the id of the last type written into u, in its numbering.
func (u *Unit) LastID() btf.TypeID { return btf.TypeID(u.First) + btf.TypeID(len(u.Ends)) - 1 }

// strByValue returns the number of s among u's strings, adding it if
// needed.
func (u *Unit) strByValue(s string) (uint32, error) {
	h := maphash.String(u.m.seed, s)
	mask := uint64(len(u.slots) - 1)
	i := h & mask
	for ; u.slots[i] != 0; i = (i + 1) & mask {
		if j := u.slots[i] - 1; string(u.str(j)) == s {
			return j, nil
		}
	}
	if strings.IndexByte(s, 0) >= 0 {
		return 0, recenc.NULError(s)
	}
	j := uint32(len(u.keys))
	key := pending
	if b := u.m.base; b != nil && b.strs.ready().filter.mayHold(h) {
		if off, ok := b.strs.index.FindHash(unsafe.Slice(unsafe.StringData(s), len(s)), h); ok {
			key = off
		}
	}
	if key == pending {
		u.pending++
	}
	if len(u.keys) == cap(u.keys) || len(u.strs)+len(s) > cap(u.strs) {
		u.room(len(s)) // not inlined: tested here, for a call less a string
	}
	u.keys = append(u.keys, key)
	u.strs = append(u.strs, s...)
	u.strEnds = append(u.strEnds, uint32(len(u.strs)))
	u.slots[i] = j + 1
	u.spos = append(u.spos, uint32(i))
	if 2*len(u.keys) > len(u.slots) {
		u.grow()
	}
	return j, nil
}

// str returns the bytes of string j.
func (u *Unit) str(j uint32) []byte {
	lo := uint32(0)
	if j > 0 {
		lo = u.strEnds[j-1]
	}
	return u.strs[lo:u.strEnds[j]]
}

// grow enlarges the index of the strings, at least twofold (see more).
func (u *Unit) grow() {
	u.resize(1 << bits.Len(uint(u.more(len(u.slots), 2*len(u.slots), 2*u.names)-1)))
}

// room makes room for one more string of n bytes (see more).
func (u *Unit) room(n int) {
	if len(u.keys) == cap(u.keys) {
		c := u.more(cap(u.keys), len(u.keys)+1, u.names)
		u.keys = slices.Grow(u.keys, c-len(u.keys))
		u.strEnds = slices.Grow(u.strEnds, c-len(u.strEnds))
		u.spos = slices.Grow(u.spos, c-len(u.spos))
	}
	if len(u.strs)+n > cap(u.strs) {
		// Mapped from the first growth, as mmap.Append did for every
		// array: a Unit is reused for every unit of a worker, and its
		// strings on the heap cost a write barrier for each string
		// appended while the collector marks (xfs.ko: 7 M instructions
		// more, cmd/kmeta/BENCH.md "Small objects").
		c := max(u.more(cap(u.strs), len(u.strs)+n, u.size), mmap.MinSlice)
		u.strs = mmap.Append(u.strs, c-len(u.strs), &u.mem.strs)
	}
}

// unitKeep is the most memory of strings that a Unit keeps for the next
// unit once Release is called: a producer reuses its Units, and the
// strings of one huge unit should not stay resident after its append.
const unitKeep = 1 << 20

// Release gives back the memory of u's strings if it holds more than
// unitKeep bytes of them. A producer calls it once u has been appended
// (Merger.AddUnit), which copies the strings it needs; u must then be
// Reset before it is written again. Like AddUnit, it may be called on
// another goroutine than the one that writes u, not at the same time.
func (u *Unit) Release() {
	if u.mem.strs != nil && u.mem.strs.Len() > unitKeep {
		u.mem.free()
		u.strs = nil
	}
}

// more returns the new capacity of an array of capacity c that needs
// need: twice c, or with a bound from GrowNames four times c, and the
// bound itself once that is less than eight times c. A unit whose names
// are all distinct (an enum of 65,535 enumerators) then grows its arrays
// seldom and last to their final size, and one whose names repeat (a
// struct of 65,535 members all named "m") reserves no more than it uses.
func (u *Unit) more(c, need, bound int) int {
	n := 2 * c
	if bound > n {
		n = 4 * c
		if bound < 2*n {
			n = bound
		}
	}
	return max(n, need)
}

// resize makes the index of the strings n slots long, n a power of two
// above twice their number. The strings are hashed again: a unit keeps
// no hashes (8 bytes a string), and sized by GrowNames it seldom grows.
func (u *Unit) resize(n int) {
	u.slots = make([]uint32, n)
	mask := uint64(len(u.slots) - 1)
	for j := range u.keys {
		i := maphash.Bytes(u.m.seed, u.str(uint32(j))) & mask
		for u.slots[i] != 0 {
			i = (i + 1) & mask
		}
		u.slots[i] = uint32(j) + 1
		u.spos[j] = uint32(i)
	}
}

// GrowNames tells u that at most n more names, of size bytes in all, are
// to come, repeated or not (a DWARF encoder: the names of its unit's
// types and of their elements), until Reset. Its strings' arrays and
// index then grow fourfold, as far as that bound, not twofold: on a unit
// of one enum of 65,535 enumerators, growing by append allocated about
// twice the strings' final size (BENCH.md, "One wide unit's strings").
// Names that repeat cost nothing: the arrays grow only as strings are
// added. The list of the names' positions in the records (Words.Names,
// 4 bytes a name, pending or not, beside the three words of an element
// that Grow reserves) is sized at once.
func (u *Unit) GrowNames(n, size int) {
	n, size = max(n, 0), max(size, 0)
	u.names, u.size = len(u.keys)+n, len(u.strs)+size
	u.Names = slices.Grow(u.Names, n)
}

// viewsFree bounds the index of the strings by address (16 bytes a slot,
// at most half full) unless it is used: past viewsFree slots it doubles
// only while it has found a string for every sixteen it holds (the units
// of Debian 13's 6.12 vmlinux and xfs.ko that fill 4,096 slots find one
// for every five to seven), and a unit's new strings are then looked up
// by value only, as a string not seen before is anyway. One wide enum
// names each of its 65,535 elements once: indexed by address too they
// cost 4 MB of slots, twice that allocated as the index doubled, found
// by address never.
const viewsFree = 1 << 12

// viewsGrow tells whether the index by address, full, may double.
func (u *Unit) viewsGrow() bool {
	n := len(u.views)
	return n < viewsFree || 16*u.vhits >= len(u.vpos)
}

// unitSink is a Unit as the Sink of its encoder.
type unitSink Unit

// Str returns the key of s if u's NameCache knows it, else the number of
// s among u's strings, pending, adding it if needed; it looks s up first
// by its address.
func (u *unitSink) Str(s string) (uint32, bool, error) {
	p := unsafe.StringData(s)
	off := notInCache
	if c := u.cache; c != nil {
		if off = c.offset(p, len(s)); off != notInCache {
			if e := c.slot(off); e.off1 == off+1 && e.n == uint32(len(s)) {
				return e.key, false, nil
			}
		}
	}
	mask := uint64(len(u.views) - 1)
	i := viewHash(p, len(s)) >> 32 & mask
	for ; u.views[i].p != nil; i = (i + 1) & mask {
		if v := &u.views[i]; v.p == p && v.n == uint32(len(s)) {
			u.vhits++
			return v.j, true, nil
		}
	}
	n := len(u.keys)
	j, err := (*Unit)(u).strByValue(s)
	if err != nil || len(u.keys) == n {
		// An error, or s was there at another address: it is not
		// indexed by this one, which is most often one of many
		// copies (the inline names of a struct of 65,535 members
		// all named "m").
		return j, err == nil, err
	}
	if off != notInCache {
		for len(u.soff) < int(j) {
			u.soff = append(u.soff, notInCache)
		}
		u.soff = append(u.soff, off)
	}
	if 2*(len(u.vpos)+1) > len(u.views) && !(*Unit)(u).viewsGrow() {
		return j, true, nil // the index is full: s is found by value
	}
	u.views[i] = viewSlot{p: p, n: uint32(len(s)), j: j}
	u.vpos = append(u.vpos, uint32(i))
	if 2*len(u.vpos) > len(u.views) {
		old := u.views
		u.views = make([]viewSlot, 2*len(old))
		mask := uint64(len(u.views) - 1)
		for k, at := range u.vpos {
			v := old[at]
			i := viewHash(v.p, int(v.n)) >> 32 & mask
			for u.views[i].p != nil {
				i = (i + 1) & mask
			}
			u.views[i] = v
			u.vpos[k] = uint32(i)
		}
	}
	return j, true, nil
}

func (u *unitSink) Begin() (btf.TypeID, error) {
	if u.err != nil {
		return 0, fmt.Errorf("dedup: %w", u.err)
	}
	return btf.TypeID(u.First) + btf.TypeID(len(u.Ends)), nil
}

func (u *unitSink) End() {}

func (u *unitSink) Fail(err error) error {
	u.err = err
	return fmt.Errorf("dedup: %w", err)
}

// AddString adds s to the unit's strings, if it is not there already, as
// a name is: AddUnit adds it to the Merger's strings in its place in the
// unit's order (see Merger.AddString). It returns the string's number in
// the unit, which means nothing outside it.
func (u *Unit) AddString(s string) (uint32, error) {
	if u.err != nil {
		return 0, fmt.Errorf("dedup: %w", u.err)
	}
	return u.encoder.AddString(s)
}

// AddUnit appends the types written into u, after those appended so far,
// as AddBuilder would append a Builder holding the same records; deferred
// is the id that the references to Deferred take. Either way u can be
// Reset and written again afterwards; on error nothing is appended.
//
// AddUnit does not run a pipelined Merger's passes (see Pipeline): a
// producer that appends a unit in parts (a DWARF encoder's types, then the
// records that depend on the merge's state) calls Advance after the last.
// A Builder appended with AddBuilder before AddUnit cannot be continued
// after it: its next AddBuilder must start at its first type.
func (m *Merger) AddUnit(u *Unit, deferred btf.TypeID) error {
	if m.done {
		return ErrDone
	}
	if u.m != m {
		return fmt.Errorf("dedup: unit written for another Merger")
	}
	if u.err != nil {
		return fmt.Errorf("dedup: unit with an error: %w", u.err)
	}
	if err := m.appendWordInput(&u.Words, &u.wordInput, uint32(deferred), nil); err != nil {
		return err
	}
	u.appended = true
	return nil
}

// Advance runs a pipelined Merger's passes (see Pipeline) over the types
// appended so far that refer to no type after them; AddBuilder does it
// itself, AddUnit does not. Without Pipeline it does nothing.
func (m *Merger) Advance() {
	if !m.done && m.d.pipe != nil {
		m.d.advance(m.maxRef)
	}
}
