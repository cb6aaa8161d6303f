package dwarf2btf

import "slices"

// appendTable appends v to s, one of a unit's tables (members, values,
// parameters, ...), which grow element by element as the unit is loaded
// and are kept from one unit to the next. Past 256 elements append grows
// a slice by 1.25x, so a table of a unit of 100,000 types was copied
// about five times over on its way up, each copy of a pointerful table
// under the collector's write barriers; doubling copies it about twice.
// (BENCH.md, "One big compile unit".)
func appendTable[S ~[]E, E any](s S, v ...E) S {
	if len(s)+len(v) > cap(s) {
		s = slices.Grow(s, max(len(v), len(s)))
	}
	return append(s, v...)
}
