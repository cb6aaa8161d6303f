package cdump

import (
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
)

// The sort of bpftool 7.5's order holds its keys (keyBytes) and the memo
// of its walks (about 21 bytes a type) for every type only while they fit
// in one window (windowBytes), as a kernel's do. Beyond, it holds no key
// and no memo for every type:
//
//  1. the ids are cut into chunks of 2^chunkBits consecutive ids; the keys
//     of one chunk are built (the window), sorted, and kept as the order
//     of the chunk's ids, 2 bytes each (an id less the chunk's first);
//  2. the chunks are merged as the types are printed: the key of each
//     chunk's next type is built again, and the smallest goes first.
//
// Both build their keys with a memo of a fixed size (newCacheMemo). Every
// key is built twice, and the merge compares a few keys for each type
// (log2 of the chunks); the ids, 2 bytes a type, are all that grows
// with the input.

// windowBytes bounds what the sort holds in one window: keys and dense
// memo for every type, or one chunk's keys. The keys and memo of every
// type are also held only within twice the input's size, which its
// bound allows (a chain of 100,000 pointers, 1.2 MB, is sorted in chunks).
const windowBytes = 6 << 20

// keyBytes is the size of a sort key: 40 bytes.
const keyBytes = int(unsafe.Sizeof(sortKey{}))

// chunkBits sets the chunks of the merged sort: 2^16 ids, whose keys
// (2 MiB) are one window, and whose order fits in uint16s. An input of
// less than 4 MiB has smaller chunks, down to 2^minChunkBits ids, whose
// memo still has more slots than a walk takes links (maxDepth).
const (
	chunkBits    = 16
	minChunkBits = 12
)

// btfSize returns the bytes of BTF of s and its bases, as the README's
// memory rules count them.
func btfSize(s *btf.Spec) int {
	n := 0
	for ; s != nil; s = s.Base() {
		n += s.HeaderLen() + len(s.TypeSection()) + s.StringsLen()
	}
	return n
}

// typeOrder yields the types to print, in order: from ids, or from the
// merge of sorted chunks.
type typeOrder struct {
	ids []btf.TypeID // the whole order, or nil

	d       *dumper
	perm    []uint16 // each chunk's types in order, less the chunk's first id
	heads   []mergeHead
	compare func(a, b sortKey) int
}

// mergeHead is the next type of one chunk: its key, and where the rest of
// the chunk's order is in perm.
type mergeHead struct {
	key       sortKey
	lo        btf.TypeID // first id of the chunk
	next, end int        // the chunk's types after key.id: perm[next:end]
}

// sortedTypes returns the order of bpftool 7.5's sorted header: the types
// that dumpType prints, or with all, every type, void included.
func (d *dumper) sortedTypes(all bool, bits int) (*typeOrder, error) {
	m := d.numSorted(all)
	size := btfSize(d.spec)
	if bits == 0 && keyBytes*m+21*d.n <= min(windowBytes, 2*size) {
		ids, err := d.sortedIDs(m, all)
		return &typeOrder{ids: ids}, err
	}
	if bits == 0 {
		// Smaller chunks and memo for a small input, whose bound is
		// small too: about 64 bytes a chunk's id, at most the input.
		bits = chunkBits
		for bits > minChunkBits && 64<<bits > size {
			bits--
		}
	}
	d.memo = newCacheMemo(max(bits, minChunkBits))
	d.memoFrom = leanDepth
	o := &typeOrder{d: d, perm: make([]uint16, 0, m), compare: d.keyOrder()}
	keys := make([]sortKey, 0, min(m, 1<<bits))
	for lo := 0; lo < d.n; lo += 1 << bits {
		var err error
		keys, _, err = d.buildKeys(keys[:0], lo, min(d.n, lo+1<<bits), all, false)
		if err != nil {
			return nil, err
		}
		d.sortByKey(keys)
		start := len(o.perm)
		for _, k := range keys {
			o.perm = append(o.perm, uint16(int(k.id)-lo))
		}
		if len(keys) > 0 {
			o.heads = append(o.heads, mergeHead{key: keys[0], lo: btf.TypeID(lo), next: start + 1, end: len(o.perm)})
		}
	}
	for i := len(o.heads)/2 - 1; i >= 0; i-- {
		o.down(i)
	}
	return o, nil
}

// next returns the next type to print, and false after the last one or
// on error (in d.err).
func (o *typeOrder) next() (btf.TypeID, bool) {
	if o.d == nil {
		if len(o.ids) == 0 {
			return 0, false
		}
		id := o.ids[0]
		o.ids = o.ids[1:]
		return id, true
	}
	if len(o.heads) == 0 {
		return 0, false
	}
	h := &o.heads[0]
	id := h.key.id
	if h.next < h.end {
		id := h.lo + btf.TypeID(o.perm[h.next])
		h.key = o.d.keyFrom(id, o.d.typ(id))
		h.next++
		if o.d.err != nil {
			return 0, false
		}
	} else {
		*h = o.heads[len(o.heads)-1]
		o.heads = o.heads[:len(o.heads)-1]
	}
	o.down(0)
	return id, true
}

// leanDepth is where the walks of the merged sort start using its memo:
// the links nearer the key's own type are walked without it. The merge
// builds its keys in key order, spread over the whole input, so the memo
// seldom still holds what those walks need, and claiming its slots
// costs more than walking: a slot is a cache line in each of five
// slices, taken for every link (100,000 linked lists,
// list-chain-100000, spent about a third of their CPU time there, in
// memory stalls), and the chunks' own builds gain little from it either.
// A struct, a pointer to it and its members' types are within 4 links;
// a chain still costs each type at most leanDepth links and meets the
// memo past them, which keeps the chain's walks linear.
const leanDepth = 4

// down moves heads[i] down the heap to its place.
func (o *typeOrder) down(i int) {
	hs := o.heads
	for {
		c := 2*i + 1
		if c >= len(hs) {
			return
		}
		if c+1 < len(hs) && o.compare(hs[c+1].key, hs[c].key) < 0 {
			c++
		}
		if o.compare(hs[c].key, hs[i].key) >= 0 {
			return
		}
		hs[i], hs[c] = hs[c], hs[i]
		i = c
	}
}
