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
//
// It takes one element, not a variadic list: append(s, v...) of a list
// of one is a call to the runtime's copy (typedslicecopy, under write
// barriers for a pointerful table), where append(s, v) is a store; on the
// 6.12 vmlinux that call was about 0.5 G of the encoding's instructions
// (BENCH.md, "The instructions of one big encoding").
func appendTable[S ~[]E, E any](s S, v E) S {
	if len(s) == cap(s) {
		s = growTable(s, 1)
	}
	return append(s, v)
}

// appendTables appends the elements v to s, as appendTable.
func appendTables[S ~[]E, E any](s S, v []E) S {
	if len(s)+len(v) > cap(s) {
		s = growTable(s, len(v))
	}
	return append(s, v...)
}

// growTable returns s in a new array with room for at least n more
// elements, twice its capacity or more.
func growTable[S ~[]E, E any](s S, n int) S {
	grown := make(S, len(s), max(len(s)+n, 2*cap(s), 16))
	copy(grown, s)
	return grown
}
