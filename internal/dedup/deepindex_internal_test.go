package dedup

import (
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
