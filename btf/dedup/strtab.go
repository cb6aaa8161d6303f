package dedup

import (
	"bytes"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// Names in records are string keys: the string offset in the base's string
// space for a string of the base, else an offset in the deduplication's own
// string section, which starts where the base's strings end. Equal strings
// get equal keys, as libbpf's string deduplication gives them equal offsets
// (btf_dedup_strings: a string found in the base takes the base's lowest
// offset; base records keep their offsets as they are).

// strtab is an own string section with an index.
type strtab struct {
	base  *baseStrings // nil for standalone BTF
	start uint32       // key of data[0]
	data  []byte
	index map[string]uint32
}

func newStrtab(base *baseStrings, hint int) strtab {
	t := strtab{base: base, index: make(map[string]uint32, hint)}
	if base == nil {
		t.data = []byte{0}
		t.index[""] = 0
	} else {
		t.start = base.end
	}
	return t
}

// intern returns the key of s, which holds no NUL.
func (t *strtab) intern(s []byte) (uint32, error) {
	if len(s) == 0 {
		return 0, nil
	}
	if t.base != nil {
		if off, ok := t.base.index[string(s)]; ok {
			return off, nil
		}
	}
	if off, ok := t.index[string(s)]; ok {
		return off, nil
	}
	off := t.start + uint32(len(t.data))
	if uint64(off)+uint64(len(s)) > wire.MaxNameOffset {
		return 0, fmt.Errorf("dedup: string section larger than the %d bytes BTF allows", wire.MaxNameOffset)
	}
	t.data = append(t.data, s...)
	t.data = append(t.data, 0)
	t.index[string(s)] = off
	return off, nil
}

// str returns the string of key k.
func (t *strtab) str(k uint32) []byte {
	if k < t.start {
		return t.base.str(k)
	}
	rest := t.data[k-t.start:]
	return rest[:bytes.IndexByte(rest, 0)]
}

// baseStrings is a base's string space: its sections and an index of the
// strings that start after a NUL, each at its lowest offset, as
// btf__find_str finds them.
type baseStrings struct {
	secs  [][]byte // string sections, root first
	start []uint32
	end   uint32
	index map[string]uint32
}

func (b *baseStrings) str(off uint32) []byte {
	for k := len(b.secs) - 1; k >= 0; k-- {
		if off >= b.start[k] {
			rest := b.secs[k][off-b.start[k]:]
			if i := bytes.IndexByte(rest, 0); i >= 0 {
				return rest[:i]
			}
			return rest
		}
	}
	return nil
}

func (b *baseStrings) build() {
	n := 0
	for _, s := range b.secs {
		n += bytes.Count(s, []byte{0})
	}
	b.index = make(map[string]uint32, n)
	for k, sec := range b.secs {
		for off := 0; off < len(sec); {
			i := bytes.IndexByte(sec[off:], 0)
			if i < 0 {
				break
			}
			if i > 0 {
				s := string(sec[off : off+i])
				if _, ok := b.index[s]; !ok {
					b.index[s] = b.start[k] + uint32(off)
				}
			}
			off += i + 1
		}
	}
}
