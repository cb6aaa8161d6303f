package btf

// ParseSplitWalk is ParseSplit walking a type section of splitAt bytes or
// more in two halves (0: any section), and reports whether the second half
// was used.
func ParseSplitWalk(b []byte, base *Spec, splitAt uint32) (s *Spec, halved bool, err error) {
	s, err = parseSplit(b, base, splitAt)
	if err != nil {
		return nil, false, err
	}
	return s, s.halved, nil
}

// ParseLazy is a Lazy open of b that finds q on the way, following two
// chains of records in a type section of splitAt bytes or more (0: any),
// and reports whether the second chain was used.
func ParseLazy(b []byte, q FlavorQuery, splitAt uint32) (s *Spec, halved bool, err error) {
	s, err = parseLazy(b, q, splitAt)
	if err != nil {
		return nil, false, err
	}
	return s, s.halved, nil
}

// ReadsFound reports whether FindFlavors for q reads what the lazy walk
// found instead of walking the records.
func (s *Spec) ReadsFound(q FlavorQuery) bool {
	return s.found != nil && s.found.f.covers(q.filter())
}
