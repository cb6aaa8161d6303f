package strtab

import (
	"bytes"
	"hash/maphash"
)

// Table is a string space as split BTF numbers it: a base's strings, if
// any, then an own section that starts where they end. A string is named
// by its offset in that space (its key); a string the base holds keeps the
// base's lowest offset, as libbpf's btf__add_str and btf_dedup_strings
// give it.
type Table[S Slot] struct {
	// Base indexes the base's strings, nil for standalone BTF.
	Base *Set[S]
	// Start is the key of Own's first byte.
	Start uint32
	// Own holds the strings the base does not. For standalone BTF it
	// starts with the empty string at offset 0.
	Own Set[S]

	// lazy, if not nil, returns the base's sections, indexed when the
	// first string is interned (SetLazyBase).
	lazy func() [][]byte
}

// NewTable returns a Table on base (nil for standalone BTF, or for a base
// indexed later by IndexBase), whose own strings start at offset start;
// for standalone BTF (start 0) they start with the empty string. The own index shares the base's hash
// seed, so that one hash serves both.
func NewTable[S Slot](base *Set[S], start uint32, opts Options) Table[S] {
	t := Table[S]{Base: base, Start: start, Own: newSet[S](opts)}
	if start == 0 {
		t.Own.AppendRaw([]byte{0})
	}
	if base != nil {
		t.Own.seed = base.seed
	}
	return t
}

// NewBase returns a dense index of a base's string sections, root first,
// whose offsets are the base's string offsets (the sections follow each
// other in the string space). One section is indexed where it is, and is
// never written; several are joined in a copy.
func NewBase[S Slot](secs [][]byte, opts Options) *Set[S] {
	b := NewSet[S](Options{Dense: opts.Dense, Mapped: opts.Mapped})
	b.indexSections(secs)
	return b
}

// IndexSections indexes a base's string sections, root first, in b, made
// empty by NewSet with NewBase's options: NewBase in two steps, for an
// index whose hash seed is needed before it is built. release, if not
// nil, is called now and then while the strings are read: a caller whose
// sections are a file's mapping gives back the pages read so far.
func (b *Set[S]) IndexSections(secs [][]byte, release func()) {
	if len(secs) == 1 {
		b.SetData(secs[0])
	} else {
		b.SetData(bytes.Join(secs, nil))
	}
	b.index(release)
}

// IndexBase gives a Table its Base, the index of the base's sections as
// NewBase builds it, with the own strings' hash seed: for a Table made
// standalone whose base is indexed only when first needed.
func (t *Table[S]) IndexBase(secs [][]byte, opts Options) {
	b := NewSet[S](Options{Dense: opts.Dense, Mapped: opts.Mapped})
	b.seed = t.Own.seed
	b.indexSections(secs)
	t.Base = b
}

// SetLazyBase has the Table index its base when it first interns a
// string: sections returns the base's sections, as IndexBase takes them.
// For a Table whose base may never be needed.
func (t *Table[S]) SetLazyBase(sections func() [][]byte) { t.lazy = sections }

func (b *Set[S]) indexSections(secs [][]byte) {
	if len(secs) == 1 {
		b.SetData(secs[0])
	} else {
		b.SetData(bytes.Join(secs, nil))
	}
	b.Index()
}

// Intern returns the key of s, which holds no NUL, adding s to the own
// strings if neither the base nor they hold it. The empty string is
// always key 0. It returns false if s is new and would start past the own
// section's limit (Set.SetLimit); nothing is added then.
func (t *Table[S]) Intern(s []byte) (uint32, bool) {
	if len(s) == 0 {
		return 0, true
	}
	// Guarded by builder's BenchmarkMinimalTaskStruct and dedup's
	// BenchmarkMerged.
	if t.lazy != nil {
		t.IndexBase(t.lazy(), Options{})
		t.lazy = nil
	}
	h := maphash.Bytes(t.Own.seed, s)
	if t.Base != nil {
		if _, slot, ok := t.Base.probe(s, h); ok {
			return uint32(slot & offMask[S]()), true
		}
	}
	off, ok := t.Own.AddHash(s, h)
	return t.Start + off, ok
}

// Widen returns t with uint64 slots: the same strings, keys, hash seed and
// options, for a string space that outgrows the 24 offset bits of a uint32
// slot (a Table[uint32]'s own strings stop at 2^24 bytes, Set.SetLimit).
// The own strings move to the new Table; the base's stay where they are,
// indexed again in full. t must not be used afterwards. A writer starts
// narrow, at half the index memory, and widens only when it must: libbpf's
// btf__add_str takes string sections up to BTF_MAX_STR_OFFSET (2^31-1).
func Widen(t *Table[uint32]) *Table[uint64] {
	w := &Table[uint64]{Start: t.Start, lazy: t.lazy}
	if b := t.Base; b != nil {
		w.Base = NewSet[uint64](Options{Dense: b.dense, Mapped: b.mapped})
		w.Base.seed = t.Own.seed
		w.Base.SetData(b.data)
		w.Base.Index()
		b.FreeIndex()
	}
	w.Own = widenSet(&t.Own)
	return w
}

// widenSet returns o with uint64 slots, taking its data; o's index is
// given back.
func widenSet(o *Set[uint32]) Set[uint64] {
	w := newSet[uint64](Options{Dense: o.dense, Mapped: o.mapped})
	w.seed = o.seed
	w.data, w.first, w.shared = o.data, o.first, o.shared
	w.dataMem, o.dataMem = o.dataMem, nil
	w.setSlots(w.makeSlots(w.sizeFor(o.count)))
	if o.shared {
		// Data given by SetData may repeat strings: the old slots say
		// which offsets are indexed.
		mask := uint32(len(w.slots) - 1)
		for _, slot := range o.slots {
			if slot == 0 {
				continue
			}
			off := uint32(slot & offMask[uint32]())
			n := bytes.IndexByte(w.data[off:], 0)
			h := w.Hash(w.data[off : off+uint32(n)])
			i := uint32(h) & mask
			for w.slots[i] != 0 {
				i = (i + 1) & mask
			}
			w.slots[i] = pack[uint64](h, off)
			w.count++
		}
	} else {
		w.reindex()
	}
	o.FreeIndex()
	o.data = nil
	return w
}
