package builder

import (
	"bytes"
	"errors"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/strtab"
)

// inPlace is the string table of a WriteCopy whose output strings are its
// input's own string section as laid out: the records name each string
// for the first time in the order of the section, and no string is there
// twice. The Builder's interning would then give every name its input
// offset and collect the section's strings in its order, so the copy
// keeps no strings and no index of them: the first read checks the order
// as it goes, and the strings' uniqueness once it is over. BTF that
// libbpf wrote, and every copy that WriteCopy or CopyAll makes, is laid
// out so; pahole's is not, nor is what the Builder's Add methods wrote
// once a named struct has members (their names are interned before the
// struct's). A name out of order ends the attempt (errNotInPlace), and
// the read goes on by reference (leaveInPlace) or WriteCopy interns as
// CopyAll does.
type inPlace struct {
	strs []byte // the source's string section, from offset 0
	next uint32 // the offset of the first string not yet named
}

// errNotInPlace ends a copy that inPlace cannot serve.
var errNotInPlace = errors.New("builder: the input's strings are not laid out in place")

// filterBits and filterProbes size the Bloom filter of unique: 16 bits
// and 8 probes a string make a false match about 1 in 2,000.
const (
	filterBits   = 16
	filterProbes = 8
)

// newInPlace returns the table for a source whose own string section is
// strs, starting at offset 0.
func newInPlace(strs []byte) *inPlace { return &inPlace{strs: strs, next: 1} }

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
	p.next += uint32(len(s)) + 1
	return off, nil
}

// leaveInPlace turns WriteCopy's first read from strings in place to
// strings by reference (refStrings) where a name breaks the layout, and
// reports whether it did: src must be the one input, on no base. The
// strings named so far are the section's first ones, in its order, each
// first named in that order; interning them in order builds the index
// that the read would have built by reference from its start, so the
// read goes on from the name instead of starting again (tagged-wide-65535
// broke the layout after 131,000 of its 327,000 records, BENCH.md).
func (b *Builder) leaveInPlace(src *btf.Spec) bool {
	refs := newRefStrings(src)
	if refs == nil {
		return false
	}
	// Each string keeps its offset, or a name already written in one
	// read (WriteCopy to a file) would differ from the copy's: a string
	// there twice ends the read, as it ends the strings in place.
	ok := b.inPlace.each(func(off uint32, s []byte) bool {
		v, err := refs.intern(s, off)
		return err == nil && v == off
	})
	if !ok {
		refs.free()
		return false
	}
	b.inPlace, b.refs = nil, refs
	return true
}

// unique reports whether the strings named, those laid out before next,
// are distinct, as the interning that inPlace stands for requires. A
// Bloom filter passes most strings at once; those it takes for strings
// seen before are then compared with every string in a map of them alone.
func (p *inPlace) unique() bool {
	seed := maphash.MakeSeed()
	words := 1
	for n := filterBits * bytes.Count(p.strs[:p.next], []byte{0}); words*64 < n; {
		words *= 2
	}
	seen := make([]uint64, words)
	var maybe []uint32
	p.each(func(off uint32, s []byte) bool {
		if filter(seen, maphash.Bytes(seed, s)) {
			maybe = append(maybe, off)
		}
		return true
	})
	if len(maybe) == 0 {
		return true
	}
	first := make(map[string]uint32, len(maybe))
	for _, off := range maybe {
		first[string(strtab.CString(p.strs[off:]))] = off
	}
	return p.each(func(off uint32, s []byte) bool {
		at, ok := first[string(s)]
		return !ok || at == off
	})
}

// each calls yield with the offset and bytes of every string named, in
// order, while it returns true, and reports whether it always did.
func (p *inPlace) each(yield func(off uint32, s []byte) bool) bool {
	for off := uint32(1); off < p.next; {
		s := strtab.CString(p.strs[off:])
		if !yield(off, s) {
			return false
		}
		off += uint32(len(s)) + 1
	}
	return true
}

// filter adds the string of hash h to the Bloom filter seen and reports
// whether all its bits were set already.
func filter(seen []uint64, h uint64) bool {
	step := h>>32 | 1
	mask := uint64(len(seen)*64 - 1)
	all := true
	for range filterProbes {
		bit := h & mask
		w := &seen[bit>>6]
		all = all && *w&(1<<(bit&63)) != 0
		*w |= 1 << (bit & 63)
		h += step
	}
	return all
}

// data returns the output's string section.
func (p *inPlace) data() []byte { return p.strs[:p.next] }
