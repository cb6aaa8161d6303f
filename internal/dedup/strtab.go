package dedup

import (
	"fmt"
	"sync"

	"github.com/kmeta-dev/kmeta/internal/strtab"
)

// Names in records are string keys: the string offset in the base's string
// space for a string of the base, else an offset in the deduplication's own
// string section, which starts where the base's strings end. Equal strings
// get equal keys, as libbpf's string deduplication gives them equal offsets
// (btf_dedup_strings: a string found in the base takes the base's lowest
// offset; base records keep their offsets as they are).
//
// The string space is a strtab.Table with uint64 slots (32 hash bits above
// a 32-bit offset: the own section may pass wire.MaxNameOffset while
// strings of dropped types are counted); its large arrays are in
// mappings (see makeMapped).

// strset is a string section with its index.
type strset = strtab.Set[uint64]

// strSpace is a deduplication's string space: an own string section, on a
// base's strings if any.
type strSpace struct {
	strtab.Table[uint64]
	base *baseStrings // indexed (ready) before the Table probes it
}

func newStrSpace(base *baseStrings, hint int) strSpace {
	var index *strset
	start := uint32(0)
	if base != nil {
		index, start = base.index, base.end
	}
	return strSpace{strtab.NewTable(index, start, strtab.Options{Hint: hint, Mapped: true}), base}
}

// intern returns the key of s, which holds no NUL.
func (t *strSpace) intern(s []byte) (uint32, error) {
	if t.base != nil && len(s) > 0 {
		t.base.ready()
	}
	key, _ := t.Intern(s)
	// Strings of types that deduplication drops are counted here too;
	// the output's own limit is checked when it is written.
	if uint64(t.Start)+uint64(t.Own.Len()) > maxID {
		return 0, fmt.Errorf("dedup: more than %d bytes of strings appended", maxID)
	}
	return key, nil
}

// data returns the own string section.
func (t *strSpace) data() []byte { return t.Own.Data() }

// baseStrings is a base's string space: its sections and an index of the
// strings that start after a NUL, each at its lowest offset, as
// btf__find_str finds them.
//
// The index is built when a string is first looked up in it (ready), as
// libbpf builds a base's string set only when a split BTF has a string of
// its own to find there (btf__find_str): a split input whose names are
// all the base's (the tenth red team's base-copies) needs none, and
// building it for the Debian 6.1 vmlinux's 95,806 strings cost 22 M
// instructions. Its hash seed is chosen beforehand: a Merger hashes its
// strings with it.
type baseStrings struct {
	secs  [][]byte // string sections, root first
	start []uint32
	end   uint32
	index *strset // over all sections, concatenated; empty until ready
	// filter answers most lookups of strings not in index (Prepare's).
	filter strFilter
	once   sync.Once
	// failed is what made the once's work panic (a fault: the base's
	// file truncated under its mapping), raised again by every later
	// ready: a sync.Once that panicked is done, and its filter unset.
	failed any
	// release gives the base's string pages back (the Base's
	// evictStrings): called while the index is built, and once built.
	release func()
}

// newIndex makes the base's index, empty, with its hash seed.
func (b *baseStrings) newIndex() {
	b.index = strtab.NewSet[uint64](strtab.Options{Dense: true, Mapped: true})
}

// ready builds the index, up to 3/4 full (an index built once to its
// size), and its filter, unless done before; it returns b. One section
// (a vmlinux) is indexed where it is, in the Spec. Safe for concurrent
// use: every lookup in the index or filter calls it first.
func (b *baseStrings) ready() *baseStrings {
	b.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				b.failed = r
				panic(r)
			}
		}()
		b.index.IndexSections(b.secs, b.release)
		b.filter = newStrFilter(b.index)
		if b.release != nil {
			b.release()
		}
	})
	if b.failed != nil {
		panic(b.failed)
	}
	return b
}
