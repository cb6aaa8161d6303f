package dedup

import "slices"

// table is the index of canonical types by hash (libbpf's dedup_table).
//
// libbpf keeps it in a chained hash map (src/hashmap.c) and tries the
// candidates of a hash in bucket order, taking the first that matches. That
// order is visible in the output when several candidates match, so it is
// reproduced here: an insertion puts the entry first in its bucket, and each
// time the map grows (before an insertion that would fill it beyond 3/4,
// doubling from 4 buckets) it re-links every bucket, which reverses the
// order of the entries that share a hash. Entries record the number of
// growths before them (their epoch); candidates() replays the reversals.
//
// A table may sit on a frozen one (a Base's), whose entries come first in
// insertion order and are never changed.
type table struct {
	under *table // frozen table below, or nil
	heads map[uint64]int32
	ents  []entry
	sz    uint64 // entries, including under's
	cap   uint64 // libbpf's bucket count
	grows uint32
}

type entry struct {
	id    uint32
	epoch uint32
	prev  int32 // previous entry with the same hash in ents, -1 if none
}

func newTable(under *table, hint int) *table {
	t := &table{under: under, heads: make(map[uint64]int32, hint), ents: make([]entry, 0, hint)}
	if under != nil {
		t.sz, t.cap, t.grows = under.sz, under.cap, under.grows
	}
	return t
}

// add appends a canonical type under hash h, as hashmap__append does.
func (t *table) add(h uint64, id uint32) {
	if t.cap == 0 || (t.sz+1)*4/3 > t.cap {
		t.cap = max(4, 2*t.cap)
		t.grows++
	}
	t.sz++
	prev, ok := t.heads[h]
	if !ok {
		prev = -1
	}
	t.heads[h] = int32(len(t.ents))
	t.ents = append(t.ents, entry{id: id, epoch: t.grows, prev: prev})
}

// candidates returns the ids stored under h in the order libbpf tries them,
// using buf for storage.
func (t *table) candidates(h uint64, buf []uint32) []uint32 {
	var tmp [8]entry
	es := tmp[:0]
	es = t.chain(h, es)
	if t.under != nil {
		es = t.under.chain(h, es)
	}
	buf = buf[:0]
	switch len(es) {
	case 0:
		return buf
	case 1:
		return append(buf, es[0].id)
	}
	slices.Reverse(es) // insertion order
	cur := uint32(0)
	for _, e := range es {
		if (e.epoch-cur)%2 == 1 {
			slices.Reverse(buf)
		}
		cur = e.epoch
		buf = slices.Insert(buf, 0, e.id)
	}
	if (t.grows-cur)%2 == 1 {
		slices.Reverse(buf)
	}
	return buf
}

// chain appends the entries of t itself under h, newest first.
func (t *table) chain(h uint64, es []entry) []entry {
	i, ok := t.heads[h]
	if !ok {
		return es
	}
	for ; i >= 0; i = t.ents[i].prev {
		es = append(es, t.ents[i])
	}
	return es
}
