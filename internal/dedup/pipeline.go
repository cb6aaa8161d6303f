package dedup

import (
	"github.com/kmeta-dev/kmeta/btf"
)

// Pipeline makes the Merger deduplicate as it goes: from then on, each
// AddBuilder also runs libbpf's first passes (the checks, the primitive
// types, then structs and unions) over the types appended so far whose
// type graphs are complete, as far as their result cannot depend on types
// appended later. Dedup does the rest. The output is the same as without,
// byte for byte; the work moves to the goroutine that calls AddBuilder,
// while the inputs are still being produced. A DWARF encoder, which
// appends a compile unit at a time from workers, overlaps most of the
// deduplication with its encoding this way. The canonical map is held
// during the appends, instead of after them; the structs, unions and
// enums found to be duplicates are compacted as they are decided, which
// more than makes up for it (see compact.go).
//
// Why the result is the same: libbpf runs the primitive pass over every
// type before the struct pass. The struct pass decides a type from the
// types before it, which the pipeline has all processed, and from the
// primitive types after it, of which only one effect reaches back: a
// later enum definition remaps an earlier canonical enum declaration, and
// that changes no comparison of the types before it (both sides of an
// equality of canonical ids resolve through the same declaration). Which
// of two matching candidates libbpf takes depends on the order of its
// hash buckets, which depends on how many primitive types were filed
// before, known only at the end: the pipeline stops at the first struct
// with two candidates that could match and leaves it, and everything
// after it, to Dedup. Structs and unions it decided are filed in the
// table at the end, in their order, where libbpf would have filed them.
//
// Pipeline must be called before the first input is appended; called
// later, it does nothing. Inputs appended with AddSpec are deduplicated
// by Dedup, as without a pipeline.
func (m *Merger) Pipeline() error {
	if m.done {
		return ErrDone
	}
	d := m.d
	if d.pipe != nil || d.n() > 0 {
		return nil
	}
	p := &pipeline{stab: map[uint64][]uint32{}}
	d.pipe = p
	d.sigs.size = sigWindow
	d.bs = d.scratch()
	if d.base != nil {
		d.enums = newEnumIndex(&d.base.enums)
	} else {
		d.enums = newEnumIndex(nil)
	}
	return nil
}

// pipeline is the state of a pipelined deduplication (Merger.Pipeline).
// Indexes are own ids minus first.
type pipeline struct {
	closed     uint32 // records before it refer only to records before it
	checked    uint32 // records before it went through refersOdd
	primDone   uint32 // the primitive pass's position
	structDone uint32 // the struct pass's position
	stopped    bool   // the struct pass stopped (Pipeline says when)
	compared   int    // comparisons the struct pass made (isEquiv calls)
	failSteps  uint64 // steps of the struct pass's comparisons that failed
	compacted  uint32 // records before it were compacted (compact.go)
	ends       []uint32

	stab  map[uint64][]uint32 // canonical structs by key, decided here
	sents []sent              // the same, in the order they were filed
}

type sent struct {
	h  uint64
	id uint32
}

// growMaps makes the canonical and hypothetical maps cover n own types.
func (d *state) growMaps(n uint32) {
	have := uint32(len(d.m))
	if n <= have {
		return
	}
	d.m = growMapped(d.m, int(n-have), &d.mMem)[:n]
	// New memory is zeros, as the hypothetical map starts (state.hyp),
	// and only what is written is touched.
	d.hyp = growMapped(d.hyp, int(n-have), &d.hypMem)[:n]
	// The kinds, a byte a type, spare
	// the passes reading each kind through the records' offsets.
	d.kt.own = growMapped(d.kt.own, int(n-have), &d.kindsMem)[:n]
	d.initTypes(have, n)
}

// advance runs the passes over the records appended since the last call
// whose type graphs are complete; maxRef is at least the largest
// reference any record holds to a type after it (Merger.maxRef).
func (d *state) advance(maxRef uint32) {
	p := d.pipe
	if p.stopped {
		return // Dedup does the rest
	}
	n := d.n()
	// The largest prefix closed under references: a compile unit refers
	// forward to its own later types, so the prefix ends at a unit's end.
	// When no reference goes past the last record, that is all of them.
	closed := n
	if maxRef >= d.first+n {
		closed, maxRef = p.closed, 0
		for i := p.closed; i < n; i++ {
			r := d.recs.rec(i)
			r.ForRefs(func(j uint32) { maxRef = max(maxRef, r[j]) })
			if maxRef <= d.first+i {
				closed = i + 1
			}
		}
	}
	if closed == p.closed {
		return
	}
	p.closed = closed
	d.growMaps(closed)
	for ; p.checked < closed; p.checked++ {
		if refersOdd(d.recs.rec(p.checked), &d.kt) {
			d.odd.Store(true) // pipeFinish looks further (checkOdd)
		}
	}
	for ; p.primDone < closed; p.primDone++ {
		d.primType(d.first + p.primDone)
	}
	defer d.compactRecs()
	// Once a graph may reach a VAR, DATASEC or DECL_TAG, Dedup decides
	// the rest: if two of one name can be reached, it compares every
	// candidate in libbpf's order (checkOdd), which the pipeline's key
	// skips. Before, no graph reaches one, so no comparison skipped could
	// have failed with an error.
	if d.odd.Load() || d.base != nil && d.base.odd {
		p.stopped = true
		return
	}
	for ; p.structDone < closed; p.structDone++ {
		d.sigs.moveTo(p.structDone)
		if !d.pipeStruct(d.first + p.structDone) {
			p.stopped = true
			return
		}
	}
}

// maxPipeTries bounds the candidates pipeStruct compares a struct with.
// The pipeline files candidates by their shallow key only, without the
// deep and full signatures and exact depths that filter Dedup's struct
// pass (deep.go, exact.go), and each comparison may walk the whole graph:
// on a chain of n structs of one name, each holding the next, every struct
// is shallow-equal to every one before it and the comparisons cost O(n^3)
// (a 1,523-struct mutant of a DWARF member ring: 39 s, where pahole 1.24
// takes 13 s; issue 37). Past the bound the pipeline stops and Dedup, with
// its filters, decides the struct and the rest: the output is the same.
// No struct of Debian 13's 6.12 and 7.3 vmlinux comes near it.
//
// The comparisons that failed are bounded too, by their steps over the
// whole pipeline: past pipeBudget the pipeline stops likewise. On a chain
// of 100,000 such structs, 32 tries for each of the first 33 were 528
// comparisons 100,000 deep (3.5 s of btf encode); the budget stops the
// pipeline after ten (0.28 s). Debian 13's 6.12 and 7.3 vmlinux spend
// 381 and 465 steps.
const maxPipeTries = 32

// pipeBudget is the failed steps past which the pipeline stops. A failed
// step costs the pipeline about twice what it costs Dedup's struct pass:
// the pipeline compares a struct with every candidate, to know that at
// most one matches, where the struct pass stops at the first that does
// (libbpf's order), and Dedup's filters start after its own budget
// (deepBudget, at most the number of types; run sets it for a pipeline
// too). With deepBudget here instead, issue 37's wide record of 2,049
// identical 16-deep anonymous chains, encoded from DWARF, spent 1,048,577
// failed steps in the pipeline, half of them on candidates after their
// match, and the encoding 2.4 times pahole 1.24's instructions
// (BENCH.md). Real BTF fails a few hundred steps.
const pipeBudget = 1 << 16

// pipeStruct is structType for the pipeline: it reports false, having
// changed nothing, when the result could depend on the order of
// candidates, or on error (left for Dedup to find again).
func (d *state) pipeStruct(id uint32) bool {
	if d.mapped(id) {
		return true
	}
	r := d.rec(id)
	switch kindOf(r) {
	case btf.KindStruct, btf.KindUnion:
	case btf.KindTypedef:
		if d.compat == CompatLibbpf11 { // a reference type there (refType)
			return true
		}
	default:
		return true
	}
	p := d.pipe
	k := d.structKey(r, id)
	h := k.h
	// structType tries the candidates that are shallow-equal in bucket
	// order and takes the first that is equivalent; a comparison that
	// fails leaves no trace. So when at most one is equivalent, the order
	// does not matter. The table holds the base's types and the primitive
	// ones, p.stab the structs decided here.
	var cand uint32
	n, tries := 0, 0
	last := false // the last comparison made was cand's
	try := func(c uint32) bool {
		if !equalShallow(r, d.rec(c)) {
			return true
		}
		if tries++; tries > maxPipeTries {
			return false // Dedup's filters decide it (maxPipeTries)
		}
		p.compared++
		d.clearHypot()
		start := d.ticks
		eq := d.isEquiv(id, c)
		last = eq > 0
		switch {
		case eq < 0:
			d.err = nil
			return false
		case eq == 0:
			if p.failSteps += uint64(d.ticks - start); p.failSteps > pipeBudget {
				return false // Dedup decides it (pipeBudget)
			}
		case eq > 0:
			// An equivalence that only adjusts (a base FWD) merges
			// the hypothetical map and goes on: that leaves a trace.
			if d.adjust {
				return false
			}
			cand, n = c, n+1
		}
		return n < 2
	}
	for c := range d.tab.candidates(k) {
		if !try(c) {
			d.clearHypot()
			return false
		}
	}
	for _, c := range p.stab[h] {
		if !try(c) {
			d.clearHypot()
			return false
		}
	}
	newID := id
	if n == 1 {
		if !last {
			d.clearHypot()
			d.isEquiv(id, cand) // again, for its hypothetical map
		}
		d.mergeHypot()
		newID = cand
	}
	d.set(id, newID)
	if newID == id {
		p.stab[h] = append(p.stab[h], id)
		p.sents = append(p.sents, sent{h, id})
	}
	return true
}

// pipeFinish prepares run's struct pass after a pipeline: the maps cover
// every type, the checks and the primitive pass are done, and the structs
// the pipeline decided are filed in the table. It returns the index the
// struct pass goes on from.
func (d *state) pipeFinish() (uint32, error) {
	p := d.pipe
	n := d.n()
	d.growMaps(n)
	d.checkTypes(p.checked, n)
	d.checkOdd()
	for i := p.primDone; i < n; i++ {
		d.primType(d.first + i)
	}
	for _, e := range p.sents {
		if d.faithful { // filed as libbpf does (faithfulStruct)
			e.h = hashShallow(d.rec(e.id))
			d.ftop[e.id-d.first] = d.topSig(e.id)
		}
		d.tab.add(e.h, e.id)
	}
	p.stab, p.sents = nil, nil
	return p.structDone, nil
}
