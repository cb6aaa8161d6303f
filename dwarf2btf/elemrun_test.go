package dwarf2btf

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
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

// TestCountRunWide loads one unit of one wide type (hostile.BuildDWARF8)
// and wants its elements' table sized once for them (counts, loader.countRun): a
// capacity of exactly what the unit holds, not a doubling past it, with
// every element read. One element past BTF's limit, the load refuses the
// type once it has counted, before the rest is read.
func TestCountRunWide(t *testing.T) {
	for _, c := range []struct {
		shape hostile.DWARF8Shape
		table func(cu *cuData) (len, cap int)
	}{
		{hostile.WideStruct, func(cu *cuData) (int, int) { return len(cu.members), cap(cu.members) }},
		{hostile.WideEnum, func(cu *cuData) (int, int) { return len(cu.enums), cap(cu.enums) }},
		{hostile.ManyParams, func(cu *cuData) (int, int) { return len(cu.params), cap(cu.params) }},
	} {
		for _, n := range []int{3*countFrom + 5, builder.MaxElems, builder.MaxElems + 1} {
			o, d, units := testUnits(t, hostile.BuildDWARF8(c.shape, n))
			if len(units) != 1 {
				t.Fatalf("%v-%d: %d units", c.shape, n, len(units))
			}
			l := &loader{cu: &cuData{}}
			var err error
			if l.r, err = d.newUnitReader(units[0], nil); err != nil {
				t.Fatal(err)
			}
			l.cu.reset(units[0])
			err = l.load()
			got, size := c.table(l.cu)
			switch {
			case n > builder.MaxElems:
				if err == nil || !strings.Contains(err.Error(), "more than BTF's 65535") || size > countFrom {
					t.Errorf("%v-%d: error %v with %d elements read in a table of %d, want a refusal at %d", c.shape, n, err, got, size, countFrom)
				}
			case err != nil:
				t.Errorf("%v-%d: %v", c.shape, n, err)
			case got != n || size != n:
				t.Errorf("%v-%d: %d elements in a table of %d, want %d in %d", c.shape, n, got, size, n, n)
			}
			o.free()
		}
	}
}

// testUnits opens the object data as Encode does by default and returns
// it (to free), its DWARF and its units.
func testUnits(t *testing.T, data []byte) (*object, *dwarfData, []unitHeader) {
	t.Helper()
	o, err := openObject(data)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{}
	if err := opts.resolve(o); err != nil {
		t.Fatal(err)
	}
	d := o.dwarfData(&opts)
	units, err := d.units()
	if err != nil {
		t.Fatal(err)
	}
	return o, d, units
}

// TestCountRunNested loads one unit of wide structs nested in one another
// (hostile.NestedWide) and wants every member read, and the counts of the
// long runs to read no more DIEs than the unit holds: a run inside a
// container counted already is not counted again.
func TestCountRunNested(t *testing.T) {
	const depth, n = 24, countFrom + countFrom/16

	o, d, units := testUnits(t, hostile.NestedWide(depth, n))
	defer o.free()
	l := &loader{cu: &cuData{}}
	var err error
	if l.r, err = d.newUnitReader(units[0], nil); err != nil {
		t.Fatal(err)
	}
	l.cu.reset(units[0])
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	if got := l.cu.types.len() - 1; got != 1+depth {
		t.Errorf("%d types, want %d", got, 1+depth)
	}
	dies := 1 // the int, then the structs and their members
	for k := range depth {
		dies += 1 + n + k
	}
	if l.countReads == 0 || l.countReads > dies {
		t.Errorf("the counts read %d DIEs of a unit of %d, want some and at most all", l.countReads, dies)
	}
}
