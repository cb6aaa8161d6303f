package btf

import (
	"context"
	"slices"
)

// ParseSplitWalk is Parse with a base walking a type section of splitAt bytes or
// more in two halves (0: any section), and reports whether the second half
// was used.
func ParseSplitWalk(b []byte, base *Spec, splitAt uint32) (s *Spec, halved bool, err error) {
	s, err = parseSplit(context.Background(), b, base, splitAt, false)
	if err != nil {
		return nil, false, err
	}
	return s, s.halved, nil
}

// ErrDiscarded is the error of a lookup of a record that btfmem.Discard
// gave back.
var ErrDiscarded = errDiscarded

// ParseLazy is a Lazy open of b that finds q on the way.
func ParseLazy(b []byte, q FlavorQuery) (*Spec, error) {
	return parseLazy(b, q)
}

// ReadsFound reports whether FindFlavors for q reads what the lazy walk
// found instead of walking the records.
func (s *Spec) ReadsFound(q FlavorQuery) bool {
	return s.found != nil && s.found.f.covers(q.filter())
}

// SameIndex reports whether a and b hold the same offset index and kind
// summary.
func SameIndex(a, b *Spec) bool {
	return slices.Equal(a.index, b.index) && slices.Equal(a.kinds, b.kinds)
}

// LookupWalk returns how many records a lookup of own type id of a lazy
// Spec walks past the offset its indexes keep.
func (s *Spec) LookupWalk(id TypeID) int {
	_, n := s.lazyIndexed(uint32(id - s.firstID))
	return int(n)
}

// AllChecked reports whether every record of a lazy Spec is marked as
// checked.
func (s *Spec) AllChecked() bool {
	for i := range s.n {
		if s.checked[i/64].Load()&(1<<(i%64)) == 0 {
			return false
		}
	}
	return true
}
