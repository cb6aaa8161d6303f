package dwarf2btf

import (
	"slices"
	"testing"
)

// TestElemRunNested reads runs as the loader does for a struct whose
// members are interleaved with nested structs (an anonymous union among
// members, a union inside it), and wants each run's elements contiguous
// in the table, in order, and the scratch stack empty at the end.
func TestElemRunNested(t *testing.T) {
	var table, scratch []int
	table = append(table, -1) // an earlier type's element
	// read reads a type whose elements are spec's: n > 0 pushes n, a
	// nested spec a nested type (read first, as its DIE comes first).
	type span struct{ lo, n int32 }
	var got [][]int
	var read func(base int, spec []any) span
	read = func(base int, spec []any) span {
		r := startRun(table)
		next := base
		for _, s := range spec {
			switch s := s.(type) {
			case int:
				for range s {
					*push(&r, &table, &scratch) = next
					next++
				}
			case []any:
				sp := read(base*10, s)
				got = append(got, slices.Clone(table[sp.lo:sp.lo+sp.n]))
			}
		}
		lo, n := finish(&r, &table, &scratch)
		return span{lo, n}
	}
	outer := read(1, []any{2, []any{3, []any{1}, 2}, 3, []any{}, 1})
	got = append(got, slices.Clone(table[outer.lo:outer.lo+outer.n]))
	want := [][]int{{100}, {10, 11, 12, 13, 14}, {}, {1, 2, 3, 4, 5, 6}}
	if len(got) != len(want) {
		t.Fatalf("got %d types, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("type %d: elements %v, want %v", i, got[i], want[i])
		}
	}
	if len(scratch) != 0 {
		t.Errorf("scratch holds %d elements at the end, want 0", len(scratch))
	}
	if table[0] != -1 {
		t.Errorf("the earlier type's element became %d", table[0])
	}
}
