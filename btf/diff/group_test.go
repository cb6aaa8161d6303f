package diff_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestGroupOfHugeLayouts: a group of types of one name whose layouts are
// few but each large (issue 37, seventh campaign: ENUM64s named "e" of
// 65,535 values, each a distinct layout) is compared allocating less
// than twice the two inputs (the signatures spelled a few at a time),
// where counting the layouts in a map of their signatures kept each
// one's: 109 MB here, and 85 such enums, 64 MB, peaked at 360 MB against
// a bound of 277. The change found is the same either way.
func TestGroupOfHugeLayouts(t *testing.T) {
	if raceEnabled {
		t.Skip("one group spelled on one worker, nothing concurrent: minutes under the race detector")
	}
	spec := func(n int) (*btf.Spec, int) {
		raw, err := hostile.BuildTwist(hostile.SameEnum64s, n)
		if err != nil {
			t.Fatal(err)
		}
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, len(raw)
	}
	old, n := spec(20)
	new, _ := spec(21)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	changes, err := diff.Compare(context.Background(), old, new, diff.Options{Workers: 2})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(4*n) {
		t.Errorf("allocated %d MB for two inputs of %d MB each", got>>20, n>>20)
	}
	want := []diff.Change{{Kind: "enum64", Name: "e", Change: diff.Changed, Details: []diff.Detail{
		{Change: diff.Changed, Field: "definitions", Old: 20, New: 21}, {Change: diff.Added, Field: "definition"}}}}
	if d := cmp.Diff(want, changes, cmpopts.IgnoreUnexported(diff.Change{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
