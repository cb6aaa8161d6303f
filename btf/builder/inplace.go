package builder

import (
	"bytes"
	"errors"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/internal/strtab"
)

// inPlace is the string table of a WriteCopy whose output strings are its
// input's own string section as laid out: the records name each string
// for the first time in the order of the section, and no string is there
// twice. The Builder's interning would then give every name its input
// offset and collect the section's strings in its order, so the copy
// keeps no strings and no index of them, only a filter of the strings
// named so far. BTF that libbpf or kmeta wrote (and every copy that
// WriteCopy makes) is laid out so; pahole's is not, and a name out of
// order ends the attempt (errNotInPlace), after which WriteCopy interns
// as CopyAll does.
type inPlace struct {
	strs  []byte // the source's string section, from offset 0
	next  uint32 // the offset of the first string not yet named
	seed  maphash.Seed
	seen  []uint64 // a Bloom filter of the strings named so far
	maybe []uint32 // the new strings that seen took for named ones
}

// errNotInPlace ends a copy that inPlace cannot serve.
var errNotInPlace = errors.New("builder: the input's strings are not laid out in place")

// inPlaceBits and inPlaceProbes size the filter: 16 bits and 8 probes a
// string make a false match about 1 in 2,000.
const (
	inPlaceBits   = 16
	inPlaceProbes = 8
)

// newInPlace returns the table for a source whose own string section is
// strs, starting at offset 0.
func newInPlace(strs []byte) *inPlace {
	n := inPlaceBits * bytes.Count(strs, []byte{0})
	words := 1
	for words*64 < n {
		words *= 2
	}
	return &inPlace{strs: strs, next: 1, seed: maphash.MakeSeed(), seen: make([]uint64, words)}
}

// name returns the output offset of the string at input offset off
// (nonzero), which is off itself, or errNotInPlace.
func (p *inPlace) name(off uint32) (uint32, error) {
	switch {
	case off < p.next:
		if p.strs[off-1] != 0 {
			return 0, errNotInPlace // the tail of a string
		}
		return off, nil
	case off > p.next:
		return 0, errNotInPlace // a string named before those laid out ahead of it
	}
	rest := p.strs[off:]
	s := strtab.CString(rest)
	if len(s) == 0 || len(s) == len(rest) {
		return 0, errNotInPlace // interning maps "" to 0; a string without its NUL
	}
	if p.filter(s) {
		p.maybe = append(p.maybe, off)
	}
	p.next += uint32(len(s)) + 1
	return off, nil
}

// filter adds s to the filter of named strings and reports whether all its
// bits were set already.
func (p *inPlace) filter(s []byte) bool {
	h := maphash.Bytes(p.seed, s)
	step := h>>32 | 1
	mask := uint64(len(p.seen)*64 - 1)
	all := true
	for range inPlaceProbes {
		bit := h & mask
		w := &p.seen[bit>>6]
		all = all && *w&(1<<(bit&63)) != 0
		*w |= 1 << (bit & 63)
		h += step
	}
	return all
}

// unique reports whether no string that the filter took for a named one
// is one: whether each is the first of its bytes in the strings named.
func (p *inPlace) unique() bool {
	if len(p.maybe) == 0 {
		return true
	}
	first := make(map[string]uint32, len(p.maybe))
	for _, off := range p.maybe {
		first[string(strtab.CString(p.strs[off:]))] = off
	}
	for off := uint32(1); off < p.next; {
		s := strtab.CString(p.strs[off:])
		if at, ok := first[string(s)]; ok && at != off {
			return false
		}
		off += uint32(len(s)) + 1
	}
	return true
}

// data returns the output's string section.
func (p *inPlace) data() []byte { return p.strs[:p.next] }
