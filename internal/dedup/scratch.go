package dedup

import (
	"runtime"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// baseScratch is the per-deduplication state indexed by base ids: the
// canonical map of base types (identity, except for base FWDs and enum
// declarations that a split type resolves) and the hypothetical map. Its
// arrays are as long as the base, so a Base keeps clean ones in a pool
// rather than have every split deduplication allocate and fill them; the
// few entries a deduplication changes are put back on release.
//
// Both arrays are zeros when clean (m holds each id's canonical id xor
// the id, hyp its candidate plus one) and in mappings, so the pages of the
// ids a deduplication never changes are never touched: a merge of all a
// kernel's modules writes a few pages of a vmlinux's maps.
type baseScratch struct {
	m     []uint32 // base id -> canonical id ^ id
	hyp   []uint32 // base id -> hypothetical candidate + 1 (0: unprocessed)
	dirty []uint32 // ids whose m entry changed
	mem   *scratchMem
}

type scratchMem struct{ m, hyp *mmap.Region }

func (s *scratchMem) free() { mmap.Free(&s.m, &s.hyp) }

func newBaseScratch(last uint32) *baseScratch {
	mem := new(scratchMem)
	s := &baseScratch{mem: mem}
	s.m = makeMapped[uint32](int(last)+1, &mem.m)
	s.hyp = makeMapped[uint32](int(last)+1, &mem.hyp)
	// A pool drops what it holds at a collection: the mappings go with it.
	runtime.AddCleanup(s, (*scratchMem).free, mem)
	return s
}

func (s *baseScratch) get(id uint32) uint32 { return s.m[id] ^ id }

func (s *baseScratch) set(id, v uint32) {
	if s.m[id] == 0 {
		s.dirty = append(s.dirty, id)
	}
	s.m[id] = v ^ id
}

func (s *baseScratch) hypot(id uint32) uint32 { return s.hyp[id] - 1 } // 0 - 1 == unprocessed

func (s *baseScratch) setHypot(id, v uint32) { s.hyp[id] = v + 1 }

// reset restores m; hyp is restored by clearing the hypothetical map.
func (s *baseScratch) reset() {
	for _, id := range s.dirty {
		s.m[id] = 0
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
