package dedup

import (
	"cmp"
	"iter"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/mmap"
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
type deepIndex struct {
	on      bool
	known   *table   // under mix(key, deep signature)
	unknown *table   // under the key
	pend    []*entry // the unknown entries of one lookup (structCands)
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

// deepIndexOn builds the index from the table's structs, unions and
// typedefs so far, base and own, in insertion order.
func (d *state) deepIndexOn() {
	d.deepInit()
	x := &d.dix
	x.on = true
	x.known, x.unknown = newTable(nil, 0), newTable(nil, 0)
	// The entries are sorted in a mapping of their exact size, given
	// back at once: split-wide-of-deep-4095's 77,000 take 1.5 MB, which
	// a slice grown by append took two to three times over on the heap,
	// resident beside the index built from it (BENCH.md).
	n := 0
	for _, t := range []*table{d.tab.under, d.tab} {
		if t != nil {
			t.each(func(_ uint64, e entry) {
				if isStructPass(d.kt.of(e.id)) {
					n++
				}
			})
		}
	}
	var mem *mmap.Region
	all := makeMapped[filedEntry](n, &mem)[:0]
	defer mem.Free()
	for _, t := range []*table{d.tab.under, d.tab} {
		if t == nil {
			continue
		}
		t.each(func(h uint64, e entry) {
			if isStructPass(d.kt.of(e.id)) {
				all = append(all, filedEntry{h, e.id, e.epoch, e.seq})
			}
		})
	}
	slices.SortFunc(all, func(a, b filedEntry) int { return cmp.Compare(a.seq, b.seq) })
	for _, f := range all {
		d.deepFile(f.h, entry{id: f.id, epoch: f.epoch, seq: f.seq})
	}
}

// filedEntry is a table entry and its key, as deepIndexOn sorts them.
type filedEntry struct {
	h              uint64
	id, epoch, seq uint32
}

// deepFile files table entry e, of key h, in the index.
func (d *state) deepFile(h uint64, e entry) {
	if v := d.deepSig(&d.deep, e.id); deepKnown(v) {
		d.dix.known.file(mix(h, v), e)
	} else {
		d.dix.unknown.file(h, e)
	}
}

// structCands yields the candidates of type id, of key h, in libbpf's
// order: every one of the table's, or, once the index is on, those that
// deepDiffer would not skip for their deep signature alone. Inlined where
// ranged over, so that the loop body stays off the heap (see entries).
func (d *state) structCands(id uint32, h uint64) iter.Seq[uint32] {
	return func(yield func(uint32) bool) { d.walkStructCands(id, h, yield) }
}

// walkStructCands calls yield with structCands' candidates until it
// returns false.
func (d *state) walkStructCands(id uint32, h uint64, yield func(uint32) bool) {
	v := uint32(deepNone)
	if d.dix.on {
		v = d.deepSig(&d.deep, id)
	}
	if !deepKnown(v) {
		d.tab.walkIDs(h, d.tab.grows, yield)
		return
	}
	x, g := &d.dix, d.tab.grows
	x.pend = x.pend[:0]
	x.unknown.walk(h, g, func(e *entry) bool {
		x.pend = append(x.pend, e)
		return true
	})
	i, done := 0, false
	x.known.walk(mix(h, v), g, func(e *entry) bool {
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
