package dedup

import "github.com/kmeta-dev/kmeta/internal/mmap"

// frozen is a Base's table of canonical types (see table) in the compact
// form a table that never changes can take. A table's entry keeps its
// chain's links and its epoch (20 bytes), since entries are added one by
// one; a Base's are all known when it is built, so its chains are laid
// out one after the other, each oldest first, and an entry keeps its type
// id alone (4 bytes): every type is filed in order of id but VAR and
// DATASEC, so its insertion number is its rank among the filed ids
// (seqs), and its epoch follows from that (growAt). For the Debian 6.1
// vmlinux's 94,619 entries: 0.38 MB instead of 1.89.
type frozen struct {
	// slots index the chains as a table's do; a slot's head is the 1+
	// index in ents of its chain's oldest entry.
	slots []slot
	ents  []fent
	// growAt holds the insertion number of the entry before which each
	// growth of libbpf's map happened: an entry's epoch is how many are
	// at or below its own.
	growAt            []uint32
	seqs              idRank
	slotsMem, entsMem *mmap.Region
}

// fent is an entry of a frozen table: a type id, and chainEnd if it is
// its chain's newest entry (type ids are at most maxID).
type fent uint32

const chainEnd = 1 << 31

// frozenBuilder builds a frozen table from the types' keys, given in
// insertion order twice: once counted (count), once placed (place, in
// reverse order).
type frozenBuilder struct {
	f       frozen
	sz, cap uint64
	grows   uint32
}

// newFrozenBuilder returns a builder for at most n entries, whose index
// is kept up to 3/4 full, and whose ids will be filed in increasing
// order: those seqs holds.
func newFrozenBuilder(n int, seqs idRank) *frozenBuilder {
	slots := 64
	for 3*slots < 4*n {
		slots *= 2
	}
	fb := &frozenBuilder{f: frozen{seqs: seqs}}
	fb.f.slots = makePopulated[slot](slots, &fb.f.slotsMem)
	return fb
}

// count files the next entry under key h, as hashmap__append does (see
// table.add), and returns its entry as a table would hold it and the
// slot of its chain, for place.
func (fb *frozenBuilder) count(h uint64, id uint32) (entry, uint32) {
	if fb.cap == 0 || (fb.sz+1)*4/3 > fb.cap {
		fb.cap = max(4, 2*fb.cap)
		fb.grows++
		fb.f.growAt = append(fb.f.growAt, uint32(fb.sz+1))
	}
	fb.sz++
	i := fb.f.slot(h)
	sl := &fb.f.slots[i]
	if sl.head == 0 {
		sl.keyLo, sl.keyHi = uint32(h), uint32(h>>32)
	}
	sl.head++ // the chain's length, for now
	return entry{id: id, epoch: fb.grows, seq: uint32(fb.sz)}, i
}

// splitChain is the head of a frozen table's slot whose types are filed
// under their mixed keys instead (see key and Base.fileTypes).
const splitChain = -1

// split files the entries counted under slot from under the mixed keys
// that move gives them: it marks the slot as split, so that a lookup of
// its key looks for theirs.
func (fb *frozenBuilder) split(from uint32) { fb.f.slots[from].head = splitChain }

// move files again under h an entry counted under a slot split, and
// returns its new slot.
func (fb *frozenBuilder) move(h uint64) uint32 {
	i := fb.f.slot(h)
	sl := &fb.f.slots[i]
	if sl.head == 0 {
		sl.keyLo, sl.keyHi = uint32(h), uint32(h>>32)
	}
	sl.head++
	return i
}

// layout gives every chain its place once all entries are counted: each
// slot's head is then one past its chain's end, and place fills the
// chain backwards.
func (fb *frozenBuilder) layout() {
	f := &fb.f
	f.ents = makePopulated[fent](int(fb.sz), &f.entsMem)
	end := uint32(0)
	for i := range f.slots {
		if n := uint32(f.slots[i].head); f.slots[i].head > 0 {
			end += n
			f.ents[end-1] = chainEnd
			f.slots[i].head = int32(end + 1)
		}
	}
}

// place puts the entries counted, newest first, in the slots count
// returned.
func (fb *frozenBuilder) place(slot, id uint32) {
	sl := &fb.f.slots[slot]
	sl.head--
	fb.f.ents[sl.head-1] |= fent(id)
}

// table returns the frozen table as the table a deduplication sits on.
func (fb *frozenBuilder) table() *table {
	f := fb.f
	t := &table{fz: &f, sz: fb.sz, cap: fb.cap, grows: fb.grows}
	t.freeze()
	return t
}

// slot returns the slot of h: its own, or the empty one where it belongs.
func (f *frozen) slot(h uint64) uint32 { return probe(f.slots, h) }

// chainAt returns the entries of the chain that starts at a slot's head,
// oldest first.
func (f *frozen) chainAt(first int32) []fent {
	if first <= 0 {
		return nil
	}
	end := first - 1
	for f.ents[end]&chainEnd == 0 {
		end++
	}
	return f.ents[first-1 : end+1]
}

// entry returns e as a table's entry (without links).
func (f *frozen) entry(e fent) entry {
	id := uint32(e &^ chainEnd)
	seq := f.seqs.of(id) + 1
	// Most entries are of the last epochs: each growth doubles the map.
	epoch := len(f.growAt)
	for epoch > 0 && f.growAt[epoch-1] > seq {
		epoch--
	}
	return entry{id: id, epoch: uint32(epoch), seq: seq}
}

func (f *frozen) free() {
	mmap.Free(&f.slotsMem, &f.entsMem)
	f.slots, f.ents = nil, nil
}
