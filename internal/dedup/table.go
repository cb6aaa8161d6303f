package dedup

import (
	"iter"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// table is the index of canonical types by hash (libbpf's dedup_table).
//
// libbpf keeps it in a chained hash map (src/hashmap.c) and tries the
// candidates of a hash in bucket order, taking the first that matches. That
// order is visible in the output when several candidates match, so it is
// reproduced here: an insertion puts the entry first in its bucket, and each
// time the map grows (before an insertion that would fill it beyond 3/4,
// doubling from 4 buckets) it re-links every bucket, which reverses the
// order of the entries that share a hash. Entries record the number of
// growths up to their insertion (their epoch); candidates replays the
// reversals.
//
// A table may sit on a frozen one (a Base's), whose entries come first in
// insertion order and are never changed. Slots are found by open
// addressing on the 64-bit hash.
type table struct {
	under *table // frozen table below, or nil
	slots []slot
	used  int
	ents  []entry
	sz    uint64 // entries, including under's
	cap   uint64 // libbpf's bucket count
	grows uint32
	// lazy is set while the slots of a table sized by a hint are not yet
	// populated (see newTable).
	lazy bool
	// The slots and entries of a large table are in mappings (see
	// makeMapped), given back by free.
	slotsMem, entsMem *mmap.Region
	// filter, set by freeze, answers most lookups of hashes a frozen
	// table does not hold.
	filter keyFilter
	// fz, if set, holds the entries instead of slots and ents: a Base's
	// table, in its compact form (frozen.go).
	fz *frozen
}

// slot is one chain's place in the open-addressing index: one probe reads
// one 12-byte slot. The chain's oldest entry is not kept: a walk from the
// newest reaches it (see entries).
type slot struct {
	keyLo, keyHi uint32 // hash of the chain, in two halves to pack the slot
	head         int32  // 1+ index in ents of the chain's newest entry, 0 = empty
}

// slotSize is the bytes of a slot.
const slotSize = 12

func (s *slot) key() uint64 { return uint64(s.keyHi)<<32 | uint64(s.keyLo) }

type entry struct {
	id    uint32
	epoch uint32
	seq   uint32 // insertion number (libbpf's map size after it)
	prev  int32  // 1+ index of the next older entry of the chain, 0 = none
	next  int32  // 1+ index of the next newer one
}

func newTable(under *table, hint int) *table { return newTableChains(under, hint, hint) }

// newTableChains returns a table with room for hint entries whose index
// is sized for at most chains of them (their distinct hashes): entries
// are written in order, so the pages of room never used cost nothing,
// while the index's slots are spread by hash over all its pages.
func newTableChains(under *table, hint, chains int) *table {
	n := 64
	for n < 2*chains {
		n *= 2
	}
	t := &table{under: under}
	t.ents = makeMapped[entry](hint, &t.entsMem)[:0]
	// The hint may be far above the chains filed: 900,000 structs and
	// typedefs of one name make two. The slots are populated only once
	// the table holds an entry for every lazyBytes of them (see
	// refTable.reserve).
	t.slots = makeMapped[slot](n, &t.slotsMem)
	t.lazy = t.slotsMem != nil
	if under != nil {
		t.sz, t.cap, t.grows = under.sz, under.cap, under.grows
	}
	return t
}

// alloc gives the table n empty slots; the old ones, if in a mapping, must
// be freed by the caller once moved.
func (t *table) alloc(n int) {
	t.slotsMem, t.lazy = nil, false
	// Every insertion probes before it writes: populated, no page is
	// read as the zero page first (see mmap.Region.Populate).
	t.slots = makePopulated[slot](n, &t.slotsMem)
}

// free gives back the table's mappings; it must not be used afterwards.
func (t *table) free() {
	if t != nil {
		if t.fz != nil {
			t.fz.free()
		}
		mmap.Free(&t.slotsMem, &t.entsMem)
		t.slots, t.ents = nil, nil
	}
}

// add appends a canonical type under hash h, as hashmap__append does.
func (t *table) add(h uint64, id uint32) {
	if t.cap == 0 || (t.sz+1)*4/3 > t.cap {
		t.cap = max(4, 2*t.cap)
		t.grows++
	}
	t.sz++
	t.file(h, entry{id: id, epoch: t.grows, seq: uint32(t.sz)})
}

// file links e into the chain of h. An index other than libbpf's own
// (see enums.go) files entries with the epoch and sequence number their
// type got in the main table.
//
// The index grows once 3/4 full, not 1/2: it is sized for twice the
// chains sketchKeys estimates, but never for more than keepHint's
// entries, and an input that keeps all its types (a deduplicated one:
// hostile.FwdStorm, a vmlinux) outgrew that at half and doubled to a
// quarter full, 48 bytes a chain (6 MB for fwd-storm-30000's 135,000
// chains, held beside the 3 MB it moved from). A linear probe 3/4 full
// is still short; a doubling leaves it 3/8 full.
func (t *table) file(h uint64, e entry) {
	if 4*(t.used+1) > 3*len(t.slots) {
		t.rehash()
	} else if t.lazy {
		t.lazy = stillLazy(t.slotsMem, t.used, len(t.slots)*slotSize)
	}
	sl := &t.slots[t.slot(h)]
	if sl.head == 0 {
		sl.keyLo, sl.keyHi = uint32(h), uint32(h>>32)
		t.used++
	} else {
		t.ents[sl.head-1].next = int32(len(t.ents)) + 1
	}
	e.prev, e.next = sl.head, 0
	t.ents = growMapped(t.ents, 1, &t.entsMem)
	mmap.Cover(t.ents, t.entsMem, len(t.ents)+1)
	t.ents = append(t.ents, e)
	sl.head = int32(len(t.ents))
}

// slot returns the slot of h: its own, or the empty one where it belongs.
func (t *table) slot(h uint64) uint32 { return probe(t.slots, h) }

// probe returns the slot of h in slots, a power of two of them, for a
// table or a frozen table: its own, or the empty one where it belongs.
func probe(slots []slot, h uint64) uint32 {
	mask := uint32(len(slots) - 1)
	i := uint32(h>>32) & mask
	for slots[i].head != 0 && slots[i].key() != h {
		i = (i + 1) & mask
	}
	return i
}

func (t *table) rehash() { t.resize(2 * len(t.slots)) }

// resize moves the index to n slots.
func (t *table) resize(n int) {
	old, mem := t.slots, t.slotsMem
	t.alloc(n)
	for _, sl := range old {
		if sl.head != 0 {
			t.slots[t.slot(sl.key())] = sl
		}
	}
	mem.Free()
}

// head returns the newest entry (1-based) filed under h, 0 if none.
func (t *table) head(h uint64) int32 {
	if t.filter != nil && !t.filter.mayHold(h) {
		return 0
	}
	if t.fz != nil {
		return max(0, t.fz.slots[t.fz.slot(h)].head)
	}
	return max(0, t.slots[t.slot(h)].head)
}

// ownHead returns the newest entry (1-based) of this table's own chain
// of h, 0 if none, or splitChain if h is a shallow hash split (see
// state.structLone).
func (t *table) ownHead(h uint64) int32 { return t.slots[t.slot(h)].head }

// split marks the own chain of shallow hash s, whose one entry is head,
// as split, and files that entry again under h, its full key, with its
// epoch and sequence number: its place among h's in libbpf's order, as
// no other entry of s was filed before it.
func (t *table) split(s uint64, head int32, h uint64) {
	e := t.ents[head-1]
	t.slots[t.slot(s)].head = splitChain
	t.file(h, entry{id: e.id, epoch: e.epoch, seq: e.seq})
}

// underHolds reports whether the frozen table below, if any, may hold
// a chain of shallow hash s (or, for one not frozen, whether there is
// one).
func (t *table) underHolds(s uint64) bool {
	u := t.under
	switch {
	case u == nil:
		return false
	case u.fz == nil:
		return true
	case u.filter != nil && !u.filter.mayHold(s):
		return false
	}
	return u.fz.slots[u.fz.slot(s)].head != 0
}

// freeze makes the filter of a frozen table (a Base's, which every
// deduplication on it probes): a key a chain.
func (t *table) freeze() {
	f := keyFilter(newBitPairs())
	for i := range t.fz.slots {
		if sl := &t.fz.slots[i]; sl.head != 0 {
			f.add(sl.key())
		}
	}
	t.filter = f
}

// keyFilter is a Bloom filter of a frozen table's keys. A split
// deduplication looks most of its types up in its Base's table and finds
// almost none there (pahole leaves the types the base has out of split
// BTF: of the 151,389 lookups of the 1,121 Debian 6.1 modules 614 hit),
// and a miss probes a table of megabytes at random, then walks about six
// slots of a table kept 3/4 full. The filter's 128 KB, which stay in the
// cache, answer most of them with two bits.
type keyFilter bitPairs

// bits returns the two bits of key h. The keys end with a multiplication
// (mix), whose high bits are the well mixed ones; the slot index takes
// bits 32 and up from the bottom, the filter its own from the top.
func (keyFilter) bits(h uint64) (uint32, uint32) {
	return uint32(h>>44) & (bitPairsLen - 1), uint32(h>>22) & (bitPairsLen - 1)
}

func (f keyFilter) add(h uint64) { bitPairs(f).set(f.bits(h)) }

// mayHold reports whether the table may hold key h; false is certain.
func (f keyFilter) mayHold(h uint64) bool { return bitPairs(f).has(f.bits(h)) }

// A key is what a lookup finds a chain of a table by. A struct's, union's
// or typedef's is its shallow hash mixed with its top signature
// (structKey) in an own table; a Base's table files them under their
// shallow hash alone, and a walk of its chain skips those of another top
// signature, asked of the Base when met (baseSigs): the same entries in
// the same order as a chain of the mixed key, without the top signatures
// of the tens of thousands of base types no lookup meets. A shallow hash
// that many share (the Debian 6.1 vmlinux's 693 anonymous unions of two
// anonymous members and 32 bytes), whose chain every lookup of that
// shape would walk, is split: its types are filed under their mixed key
// (splitChain, Base.fileTypes). Other kinds' keys are one hash in both
// (hashKey). A key of every candidate (faithful mode, checkOdd) has the
// shallow hash in both and top 0 (never a signature: sigClean): a Base's
// split chain is then walked whole (Base.wholeChain).
type key struct {
	h       uint64 // in an own table
	shallow uint64 // in a Base's, if base is set
	top     uint32
	base    *Base // whose top signatures a Base's chain is filtered by
}

// hashKey is the key of a type filed under h in every table.
func hashKey(h uint64) key { return key{h: h} }

// inChain reports whether id, met in a Base's chain that k's top
// signature filters, is one of k's candidates.
func (k *key) inChain(id uint32) bool { return k.base.sig(id, sigTop) == k.top }

// frozenChain returns the chain of k's candidates in a frozen table, and
// whether they are those of k's top signature alone (see key).
func (t *table) frozenChain(k *key) (chain []fent, byTop bool) {
	f := t.fz
	h, byTop := k.h, k.base != nil
	if byTop {
		h = k.shallow
	}
	if t.filter != nil && !t.filter.mayHold(h) {
		return nil, false
	}
	sl := f.slots[f.slot(h)]
	if k.top == 0 && k.base != nil { // every candidate (faithfulStruct)
		if sl.head == splitChain {
			return k.base.wholeChain(h), false
		}
		return f.chainAt(sl.head), false
	}
	if sl.head == splitChain {
		h, byTop = k.h, false
		if t.filter != nil && !t.filter.mayHold(h) {
			return nil, false
		}
		sl = f.slots[f.slot(h)]
	}
	return f.chainAt(sl.head), byTop
}

// candidates yields the ids filed under k in the order libbpf tries them.
//
// No list is built: an entry inserted while the number of growths so far
// is even goes to the physical front of its bucket's list, one inserted
// while it is odd to the back (as if the list had been turned around), so
// the list is the even-epoch entries newest first, then the odd-epoch ones
// oldest first; read the other way round if the growths are odd.
func (t *table) candidates(k key) iter.Seq[uint32] {
	return func(yield func(uint32) bool) { t.walkIDs(k, t.grows, yield) }
}

// entries yields the entries filed under h in libbpf's order after the
// given number of growths.
//
// The iterators are small enough to be inlined where they are ranged
// over, and the walks they call keep their yield to the call: so the
// loop body is not allocated on the heap for every lookup (a struct
// pass looks up each struct once).
func (t *table) entries(h uint64, grows uint32) iter.Seq[entry] {
	return func(yield func(entry) bool) { t.walk(hashKey(h), grows, yield) }
}

// walkIDs is walk yielding the entries' ids.
func (t *table) walkIDs(k key, grows uint32, yield func(uint32) bool) {
	t.walk(k, grows, func(e entry) bool { return yield(e.id) })
}

// walk calls yield with the entries filed under k in libbpf's order
// after grows growths, until yield returns false.
//
// The entries are yielded as values: a frozen table's are made as they
// are read, and a pointer to one, escaping into yield, would be an
// allocation each (2.8 MB of garbage for the reference pass of a split
// input that repeats its base: BENCH.md).
func (t *table) walk(k key, grows uint32, yield func(entry) bool) {
	h := k.h
	odd := grows%2 == 1
	type chain struct {
		t          *table
		head, tail int32
	}
	// A frozen table (a Base's: below this one, or this one itself)
	// has its chain in one piece, fz, walked as the one below.
	own, below := t, t.under
	if t.fz != nil {
		own, below = nil, t
	}
	var chains [2]chain
	if own != nil {
		chains[0] = chain{t: own, head: own.head(h)}
	}
	var fz []fent
	var f *frozen
	byTop := false
	switch {
	case below == nil:
	case below.fz != nil:
		f = below.fz
		fz, byTop = below.frozenChain(&k)
	default:
		chains[1] = chain{t: below, head: below.head(h)}
	}
	// Newest first, own chain then the one below: the entries of
	// the one parity. The walk ends at each chain's oldest entry,
	// where the second walk starts.
	for c := range chains {
		ch := &chains[c]
		for i := ch.head; i != 0; i = ch.t.ents[i-1].prev {
			ch.tail = i
			if e := &ch.t.ents[i-1]; (e.epoch%2 == 1) == odd && !yield(*e) {
				return
			}
		}
	}
	for i := len(fz) - 1; i >= 0; i-- {
		if fe := f.entry(fz[i]); (fe.epoch%2 == 1) == odd && (!byTop || k.inChain(fe.id)) {
			if !yield(fe) {
				return
			}
		}
	}
	// Oldest first, the chain below then the own one: the others.
	for i := range fz {
		if fe := f.entry(fz[i]); (fe.epoch%2 == 1) != odd && (!byTop || k.inChain(fe.id)) {
			if !yield(fe) {
				return
			}
		}
	}
	for c := len(chains) - 1; c >= 0; c-- {
		ch := &chains[c]
		for i := ch.tail; i != 0; i = ch.t.ents[i-1].next {
			if e := &ch.t.ents[i-1]; (e.epoch%2 == 1) != odd && !yield(*e) {
				return
			}
		}
	}
}

// before reports whether libbpf's list (after grows growths) has a
// before b, for two entries that share a hash.
func before(a, b entry, grows uint32) bool {
	ga, gb := (a.epoch+grows)%2, (b.epoch+grows)%2 // 0: newest-first half
	if ga != gb {
		return ga < gb
	}
	if ga == 0 {
		return a.seq > b.seq
	}
	return a.seq < b.seq
}
