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
