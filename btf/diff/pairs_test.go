package diff_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestHostilePairs: two BTFs that differ in every type of one kind give
// one change for each, with its detail, in name order; with more types
// than a side caches C names for (the pointers), on one worker and on
// several, lazy or eager.
func TestHostilePairs(t *testing.T) {
	const n = 20_000
	for _, tc := range []struct {
		pair   hostile.Pair
		kind   string
		name   string // of type 0, with %d for its number
		detail diff.Detail
	}{
		{hostile.TypedefPair, "typedef", "t%d", diff.Detail{Change: diff.Changed, Field: "type", Old: "int", New: "long"}},
		{hostile.StructPair, "struct", "s%d", diff.Detail{Change: diff.Changed, Member: "b", Field: "type", Old: "int", New: "long"}},
		{hostile.EnumPair, "enum", "e%d", diff.Detail{Change: diff.Changed, Enumerator: "B", Field: "value", Old: int64(1), New: int64(2)}},
		{hostile.FuncPair, "func", "f%d", diff.Detail{Change: diff.Changed, Field: "prototype", Old: "int f%d(int a)", New: "int f%d(long a)"}},
		{hostile.PointerPair, "typedef", "p%d", diff.Detail{Change: diff.Changed, Field: "type", Old: "int *", New: "long *"}},
	} {
		t.Run(tc.pair.String(), func(t *testing.T) {
			old, new := pairSpecs(t, tc.pair, n, false)
			lazyOld, lazyNew := pairSpecs(t, tc.pair, n, true)
			for _, o := range []struct {
				old, new *btf.Spec
				workers  int
			}{{old, new, 1}, {old, new, 4}, {lazyOld, lazyNew, 2}} {
				changes, err := diff.Compare(context.Background(), o.old, o.new, diff.Options{Workers: o.workers})
				if err != nil {
					t.Fatal(err)
				}
				if len(changes) != n {
					t.Fatalf("%d workers: %d changes, want %d", o.workers, len(changes), n)
				}
				// Sorted by name: "t0", "t1", "t10", ...
				for _, i := range []int{0, 1, 2, n - 1} {
					c := changes[i]
					num := 0
					if _, err := fmt.Sscanf(c.Name[1:], "%d", &num); err != nil {
						t.Fatalf("%d workers: change %d: %v", o.workers, i, c)
					}
					d := tc.detail
					if s, ok := d.Old.(string); ok && tc.kind == "func" {
						d.Old, d.New = fmt.Sprintf(s, num), fmt.Sprintf(d.New.(string), num)
					}
					want := diff.Change{Kind: tc.kind, Name: fmt.Sprintf(tc.name, num), Change: diff.Changed, Details: []diff.Detail{d}}
					if diff := cmp.Diff(want, c, cmpopts.IgnoreUnexported(diff.Change{})); diff != "" {
						t.Errorf("%d workers: change %d (-want +got):\n%s", o.workers, i, diff)
					}
				}
			}
		})
	}
}

// pairSpecs parses the two BTFs of pair p.
func pairSpecs(t *testing.T, p hostile.Pair, n int, lazy bool) (old, new *btf.Spec) {
	t.Helper()
	a, b, err := hostile.BuildPair(p, n)
	if err != nil {
		t.Fatal(err)
	}
	var specs [2]*btf.Spec
	for i, raw := range [][]byte{a, b} {
		if specs[i], err = btf.Parse(raw, btf.Options{Lazy: lazy}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { specs[i].Close() })
	}
	return specs[0], specs[1]
}

// TestAgainstEmpty: every type of a BTF is added against an empty one, and
// removed the other way.
func TestAgainstEmpty(t *testing.T) {
	e, err := hostile.Empty()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := hostile.Build(hostile.Typedefs, 1000)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := btf.Parse(e, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	full, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	for _, tc := range []struct {
		old, new *btf.Spec
		want     string
	}{{empty, full, diff.Added}, {full, empty, diff.Removed}} {
		changes, err := diff.Compare(context.Background(), tc.old, tc.new, diff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := diff.Summarize(changes)
		// The typedefs and their int.
		if got := s.Added + s.Removed + s.Changed; got != 1001 || len(changes) == 0 || changes[0].Change != tc.want {
			t.Errorf("%s: %+v, want 1001 %s", tc.want, s, tc.want)
		}
	}
}
