package dedup

import (
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestKeySketch checks the estimate of distinct keys within 5% (three
// standard errors) from 1 to a million keys, each added several times.
func TestKeySketch(t *testing.T) {
	for _, n := range []int{1, 100, 10_000, 1_000_000} {
		var s keySketch
		for range 3 {
			for i := range n {
				s.add(mix(1, uint32(i)))
			}
		}
		got := s.estimate()
		if d := got - n; d*20 > n || -d*20 > n {
			t.Errorf("%d keys: estimated %d", n, got)
		}
	}
}

// tablePrefix runs what Dedup runs up to the main table's making, on
// spec, and returns the bytes of the table's index for each own type.
func tablePrefix(t *testing.T, spec *btf.Spec) float64 {
	t.Helper()
	m := New(nil, Options{Workers: 2})
	if err := m.AddSpec(spec); err != nil {
		t.Fatal(err)
	}
	d := m.d
	defer d.free()
	n := d.n()
	d.m = makePopulated[uint32](int(n), &d.mMem)
	d.kt.own = makePopulated[uint8](int(n), &d.kindsMem)
	d.initTypes(0, n)
	d.newTables(n)
	return float64(len(d.tab.slots)*slotSize) / float64(n)
}

// TestTableBytesPerType pins the main table's index to the chains its
// keys make (keySketch), never above keepHint's. deep-vars (the tenth red team's: VARs of
// typedefs of one 32-deep anonymous chain each) keeps a few percent of
// its types, and its index took 24 bytes a type when sized for half of
// them, all populated (BENCH.md, "Deep VARs"); structs of distinct names
// keep every one, and their index keeps keepHint's size.
func TestTableBytesPerType(t *testing.T) {
	raw, err := hostile.BuildVariant10(hostile.DeepVars, 3000)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b := tablePrefix(t, spec); b > 2 {
		t.Errorf("deep-vars-3000: %.2f bytes of index a type, want 2 at most", b)
	}

	const structs = 50_000
	b := builder.New()
	i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	for k := range structs {
		if _, err := b.AddStruct(fmt.Sprintf("s%d", k), 4, []builder.Member{{Name: "a", Type: i}}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err = b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if spec, err = btf.Parse(raw, btf.Options{}); err != nil {
		t.Fatal(err)
	}
	// As before the sketch: keepHint's half of them, at most half full,
	// a slot a type.
	if b := tablePrefix(t, spec); b < slotSize {
		t.Errorf("%d distinct structs: %.2f bytes of index a type, want %d at least", structs, b, slotSize)
	}
}
