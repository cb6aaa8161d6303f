package dedup

import (
	"cmp"
	"iter"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
)

// Once deep signatures filter the struct pass's candidates (deepOn), a
// long bucket of the table would still be walked whole, each candidate
// read and filtered: N records that differ only deep down (issue 37: N
// structs "s" { struct "t" { enum "e" { v = i } m; } m; }) cost N²/2 steps
// of the walk. A deepIndex files the bucket's structs, unions and
// typedefs again under their key mixed with their deep signature, so
// that a type of known signature walks only the candidates of its own
// signature, and those whose signature is unknown (deepNone, deepCyc),
// merged in libbpf's order. The candidates it leaves out are those
// deepDiffer skips for having a different known signature: the same
// comparisons are made, in the same order, and the output is the same.
//
// The index files a bucket only when a type of its key looks it up: the
// struct pass that turns it on has most buckets behind it (a split
// deduplication's base files every struct, union and typedef of its
// vmlinux, tens of thousands whose deep signatures would be computed for
// a lookup that never comes; on issue 37's wide record of deep chains on
// the Debian 6.1 vmlinux, a fifth of the deduplication's instructions).
type deepIndex struct {
	on      bool
	known   *table  // under mix(key, deep signature)
	unknown *table  // under the key
	pend    []entry // the unknown entries of one lookup (structCands)
	// filed holds the keys whose buckets are filed so far.
	filed map[uint64]struct{}
	ents  []entry // scratch of fileBucket
}

func (x *deepIndex) free() {
	if x.on {
		x.known.free()
		x.unknown.free()
	}
	*x = deepIndex{}
}

// deepKnown reports whether v is a deep signature that tells types apart
// by itself.
func deepKnown(v uint32) bool { return v != deepNone && v != deepCyc }

// isStructPass reports whether the struct pass files types of kind k.
func isStructPass(k btf.Kind) bool {
	return k == btf.KindStruct || k == btf.KindUnion || k == btf.KindTypedef
}

// deepIndexOn starts the index; buckets are filed as they are looked up
// (fileBucket).
func (d *state) deepIndexOn() {
	d.deepInit()
	x := &d.dix
	x.on = true
	x.known, x.unknown = newTable(nil, 0), newTable(nil, 0)
	x.filed = map[uint64]struct{}{}
}

// fileBucket files the table's structs, unions and typedefs of key k,
// base and own, in insertion order, unless done before.
func (d *state) fileBucket(k key) {
	h := k.h
	x := &d.dix
	if _, ok := x.filed[h]; ok {
		return
	}
	x.filed[h] = struct{}{}
	x.ents = x.ents[:0]
	d.tab.walk(k, d.tab.grows, func(e entry) bool {
		if isStructPass(d.kt.of(e.id)) {
			x.ents = append(x.ents, e)
		}
		return true
	})
	slices.SortFunc(x.ents, func(a, b entry) int { return cmp.Compare(a.seq, b.seq) })
	for _, e := range x.ents {
		d.deepFile(h, e)
	}
}

// deepAdd files the table's newest entry, of key h, if its bucket is
// filed; otherwise fileBucket will.
func (d *state) deepAdd(h uint64) {
	if _, ok := d.dix.filed[h]; ok {
		d.deepFile(h, d.tab.ents[len(d.tab.ents)-1])
	}
}

// deepFile files table entry e, of key h, in the index.
func (d *state) deepFile(h uint64, e entry) {
	if v := d.deepSig(&d.deep, e.id); deepKnown(v) {
		d.dix.known.file(mix(h, v), e)
	} else {
		d.dix.unknown.file(h, e)
	}
}

// structCands yields the candidates of type id, of key k, in libbpf's
// order: every one of the table's, or, once the index is on, those that
// deepDiffer would not skip for their deep signature alone. Inlined where
// ranged over, so that the loop body stays off the heap (see entries).
func (d *state) structCands(id uint32, k key) iter.Seq[uint32] {
	return func(yield func(uint32) bool) { d.walkStructCands(id, k, yield) }
}

// walkStructCands calls yield with structCands' candidates until it
// returns false.
func (d *state) walkStructCands(id uint32, k key, yield func(uint32) bool) {
	h := k.h
	v := uint32(deepNone)
	if d.dix.on {
		v = d.deepSig(&d.deep, id)
	}
	if !deepKnown(v) {
		d.tab.walkIDs(k, d.tab.grows, yield)
		return
	}
	d.fileBucket(k)
	x, g := &d.dix, d.tab.grows
	x.pend = x.pend[:0]
	x.unknown.walk(hashKey(h), g, func(e entry) bool {
		x.pend = append(x.pend, e)
		return true
	})
	i, done := 0, false
	x.known.walk(hashKey(mix(h, v)), g, func(e entry) bool {
		for ; i < len(x.pend) && before(x.pend[i], e, g); i++ {
			if !yield(x.pend[i].id) {
				done = true
				return false
			}
		}
		if !yield(e.id) {
			done = true
			return false
		}
		return true
	})
	for ; !done && i < len(x.pend); i++ {
		if !yield(x.pend[i].id) {
			return
		}
	}
}
