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
