package dedup

// baseScratch is the per-deduplication state indexed by base ids: the
// canonical map of base types (identity, except for base FWDs and enum
// declarations that a split type resolves) and the hypothetical map. Its
// arrays are as long as the base, so a Base keeps clean ones in a pool
// rather than have every split deduplication allocate and fill them; the
// few entries a deduplication changes are put back on release.
type baseScratch struct {
	m     []uint32 // base id -> canonical id; identity when clean
	hyp   []uint32 // base id -> hypothetical candidate; unprocessed when clean
	dirty []uint32 // ids whose m entry changed
}

func newBaseScratch(last uint32) *baseScratch {
	s := &baseScratch{m: make([]uint32, last+1), hyp: make([]uint32, last+1)}
	for i := range s.m {
		s.m[i] = uint32(i)
		s.hyp[i] = unprocessed
	}
	return s
}

func (s *baseScratch) set(id, v uint32) {
	if s.m[id] == id {
		s.dirty = append(s.dirty, id)
	}
	s.m[id] = v
}

// reset restores m; hyp is restored by clearing the hypothetical map.
func (s *baseScratch) reset() {
	for _, id := range s.dirty {
		s.m[id] = id
	}
	s.dirty = s.dirty[:0]
}

// scratch returns a clean baseScratch for d.
func (d *state) scratch() *baseScratch {
	if d.base == nil {
		return newBaseScratch(0)
	}
	if s, ok := d.base.pool.Get().(*baseScratch); ok {
		return s
	}
	return newBaseScratch(d.base.last)
}
