package dwarf2btf

// appendTable appends v to s, one of a unit's tables (members, values,
// parameters, ...), which grow element by element as the unit is loaded
// and are kept from one unit to the next. Past 256 elements append grows
// a slice by 1.25x, so a table of a unit of 100,000 types was copied
// about five times over on its way up, each copy of a pointerful table
// under the collector's write barriers; doubling copies it about twice.
// The new array is made here rather than by slices.Grow, whose append
// overshoots a doubling (it steps 1.25x past twice the length, to about
// 2.4x): on one struct of 65,535 members that was a members table of
// about 120,000 entries, 7.7 MB, copied from one of 3.5 (BENCH.md, "One
// big compile unit").
func appendTable[S ~[]E, E any](s S, v ...E) S {
	if n := len(s) + len(v); n > cap(s) {
		grown := make(S, len(s), max(n, 2*cap(s), 16))
		copy(grown, s)
		s = grown
	}
	return append(s, v...)
}
