package dwarf2btf

// elemRun is the elements (members, parameters) of one composite or
// subroutine being read. They go straight into the unit's table while
// nothing else is appended to it, so a type's elements are held once, not
// in a scratch stack and again in the table: on a unit of one struct of
// 65,535 members the scratch, grown by append, was half of all the loader
// allocated (BENCH.md, "One big compile unit"). Once a nested type has
// appended its own elements behind them (an anonymous union inside a
// struct, a function pointer's prototype among a function's parameters),
// the run moves to the loader's scratch stack, once, and is appended to
// the table when the type ends; the copies it leaves behind are dead
// entries, never referred to.
type elemRun struct {
	lo, end int  // the run in the table, while direct
	scratch int  // where it starts in the scratch stack, -1 while direct
	counted bool // the run was counted (counts)
}

// startRun starts a run at the end of table.
func startRun[E any](table []E) elemRun {
	return elemRun{lo: len(table), end: len(table), scratch: -1}
}

// push appends a zero element to the run and returns it, valid until the
// next append to table or scratch.
func push[E any](r *elemRun, table, scratch *[]E) *E {
	if e := pushDirect(r, table); e != nil {
		return e
	}
	return pushSlow(r, table, scratch)
}

// pushDirect is push's common case, a direct run with room in the
// table: it appends a zero element and returns it, or returns nil
// for push to do the rest. Small enough to inline (push is not), it
// is tried first where each element of a big unit is read (BENCH.md,
// "The instructions of one big encoding").
func pushDirect[E any](r *elemRun, table *[]E) *E {
	if t := *table; r.scratch < 0 && len(t) == r.end && len(t) < cap(t) {
		*table = t[:len(t)+1]
		r.end++
		e := &t[:len(t)+1][len(t)]
		var zero E
		*e = zero
		return e
	}
	return nil
}

// pushSlow is push when the table is full or the run is in scratch.
func pushSlow[E any](r *elemRun, table, scratch *[]E) *E {
	var zero E
	if r.scratch < 0 && len(*table) == r.end {
		*table = appendTable(*table, zero)
		r.end++
		return &(*table)[r.end-1]
	}
	if r.scratch < 0 {
		r.scratch = len(*scratch)
		*scratch = appendTables(*scratch, (*table)[r.lo:r.end])
	}
	*scratch = appendTable(*scratch, zero)
	return &(*scratch)[len(*scratch)-1]
}

// finish ends the run and returns where its elements are in table.
func finish[E any](r *elemRun, table, scratch *[]E) (lo, n int32) {
	if r.scratch < 0 {
		return int32(r.lo), int32(r.end - r.lo)
	}
	lo = int32(len(*table))
	*table = appendTables(*table, (*scratch)[r.scratch:])
	*scratch = (*scratch)[:r.scratch]
	return lo, int32(len(*table)) - lo
}
