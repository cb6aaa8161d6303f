package dedup

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
)

// FinishGraphs runs, over the types appended so far, what Dedup runs
// before it writes the output: every pass of libbpf's deduplication up to
// and including the reference pass. Afterwards only types that libbpf
// deduplicates in its reference pass may be appended (pointers,
// qualifiers, arrays, prototypes, functions, type and declaration tags,
// and typedefs under CompatLibbpf11's rules), besides variables and DATASECs,
// which are never deduplicated; Dedup refuses any other kind. Dedup then
// runs the reference pass over the types appended since, and writes the
// output, the same as without FinishGraphs, byte for byte.
//
// Why the output is the same: the passes before the reference pass only
// look at the kinds that may no longer be appended, and the reference pass
// goes through the types in id order, each resolved from the types it
// refers to, which an input appended later does not precede.
//
// A DWARF encoder that writes its last types (pahole 1.30's saved
// functions) into a Unit on one goroutine can call FinishGraphs on another
// meanwhile: FinishGraphs appends nothing, and writing a Unit reads
// nothing that it changes (Merger.NewUnit and Merger.NextID may be called
// too). Any other method must wait for it to return. FinishGraphs may be
// called once; a call after the first, or after an error, does nothing and
// returns that error.
func (m *Merger) FinishGraphs() error {
	if m.done {
		return ErrDone
	}
	d := m.d
	if d.graphsDone {
		return d.err
	}
	if err := m.checkMaxRef(); err != nil {
		return err
	}
	err := d.run()
	d.graphsDone, d.refDone = true, d.n()
	d.pipe = nil // no pass but the reference pass is left to run
	if err != nil && d.err == nil {
		d.err = err
	}
	// What only the passes before the reference pass use; the base's
	// table stays (baseRef).
	d.freeEnums()
	d.tab.free()
	return err
}

// checkMaxRef reports a reference beyond the types appended.
func (m *Merger) checkMaxRef() error {
	if m.maxRef >= m.d.first+m.d.n() {
		return fmt.Errorf("dedup: a Builder's type refers to [%d], which was never added", m.maxRef)
	}
	return nil
}

// runAfterGraphs is run after FinishGraphs: the checks and the reference
// pass over the types appended since, own indexes refDone..n-1.
func (d *state) runAfterGraphs(n uint32) error {
	if d.err != nil {
		return d.err
	}
	lo := d.refDone
	if n == lo {
		return nil
	}
	have := uint32(len(d.m))
	d.m = growMapped(d.m, int(n-have), &d.mMem)[:n]
	d.kt.own = growMapped(d.kt.own, int(n-have), &d.kindsMem)[:n]
	d.initTypes(have, n)
	for i := lo; i < n; i++ {
		if k := d.kt.ownKind(i); !isRefPassKind(k, d.compat) && k != btf.KindVar && k != btf.KindDatasec {
			return fmt.Errorf("dedup: %v [%d] appended after FinishGraphs", k, d.first+i)
		}
	}
	// These reference types are never compared as graphs (checkOdd).
	d.checkTypes(lo, n)
	return d.refPass(lo, n)
}
