package dedup

import (
	"fmt"

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
}

func newStrSpace(base *baseStrings, hint int) strSpace {
	var index *strset
	start := uint32(0)
	if base != nil {
		index, start = base.index, base.end
	}
	return strSpace{strtab.NewTable(index, start, strtab.Options{Hint: hint, Mapped: true})}
}

// intern returns the key of s, which holds no NUL.
func (t *strSpace) intern(s []byte) (uint32, error) {
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
type baseStrings struct {
	secs  [][]byte // string sections, root first
	start []uint32
	end   uint32
	index *strset // over all sections, concatenated
}

// build indexes the base strings, up to 3/4 full: an index built once to
// its size. One section (a vmlinux) is indexed where it is, in the Spec.
func (b *baseStrings) build() {
	b.index = strtab.NewBase[uint64](b.secs, strtab.Options{Dense: true, Mapped: true})
}
