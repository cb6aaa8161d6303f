package dedup

import (
	"runtime"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// collisions builds n copies of a shape equal in every shallow word and
// differing deeper down (redteam5's F1): structs "s" { struct "t" { enum
// "e" { v = i } m; } m; }, or unions "u" { int a; enum "e" { v = i } *b; }.
func collisions(t *testing.T, n int, unions bool) *btf.Spec {
	t.Helper()
	b := builder.New()
	b.AllowManyTypes()
	intID, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		e, err := b.AddEnum("e", 4, false, []builder.Enumerator{{Name: "v", Value: uint64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		if unions {
			p, err := b.AddPointer(e)
			if err == nil {
				_, err = b.AddUnion("u", 8, []builder.Member{{Name: "a", Type: intID}, {Name: "b", Type: p}})
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, name := range []string{"t", "s"} {
			if e, err = b.AddStruct(name, 4, []builder.Member{{Name: "m", Type: e}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestCollisionsLinear checks that records colliding on every shallow
// word, all distinct, cost the struct pass work linear in their number
// once deep signatures filter: steps plus skipped candidates, not N²/2
// candidates walked per bucket.
func TestCollisionsLinear(t *testing.T) {
	const n = 3000
	for _, unions := range []bool{false, true} {
		m := New(nil, Options{})
		m.d.deepBudget, m.d.deepOn = 0, true
		if err := m.AddSpec(collisions(t, n, unions)); err != nil {
			t.Fatal(err)
		}
		d := m.d
		if _, err := m.Dedup(builder.Options{}); err != nil {
			t.Fatal(err)
		}
		t.Logf("unions %v: %d steps, %d skips", unions, d.ticks, d.skips)
		if work := uint64(d.ticks) + d.skips; work > 40*n {
			t.Errorf("unions %v: %d steps and %d skips for %d records, want at most %d in all", unions, d.ticks, d.skips, n, 40*n)
		}
	}
}

// TestStructPassAllocs checks that looking a struct's candidates up
// allocates nothing on the heap: the candidate iterators are inlined
// where ranged over, so their loop bodies stay on the stack. Garbage
// made per lookup was most of a small input's peak (BENCH.md, "Small
// inputs"). Doubling the records must not add an allocation per record.
func TestStructPassAllocs(t *testing.T) {
	mallocs := func(n int) uint64 {
		m := New(nil, Options{Workers: 1})
		if err := m.AddSpec(collisions(t, n, false)); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := m.Dedup(builder.Options{}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	const n = 4000
	small, large := mallocs(n), mallocs(2*n)
	t.Logf("%d records: %d allocations; %d records: %d", n, small, 2*n, large)
	// 2n more struct lookups (structs "s" and "t") for the n more records.
	if large > small+n/8 {
		t.Errorf("%d more allocations for %d more records, want at most %d", large-small, n, n/8)
	}
}
