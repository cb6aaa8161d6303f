package layout

import (
	"context"
	"strconv"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// TestPrintedNamesLinear pins the comparisons the table of printed
// structs makes for mnames-N, N structs "s" { int a<i>; } of one layout
// and different member names, all printed (pahole 1.24 is linear there):
// a few per struct (the probe sequences of the table, all of name "s"),
// not one per struct printed before (N*N/2 before the names hash). The table starts
// small, as a spy on its growth too.
func TestPrintedNamesLinear(t *testing.T) {
	for _, n := range []int{1000, 4000} {
		b := builder.New()
		i32, err := b.AddInt("int", 4, btf.IntInfo{Bits: 32, Encoding: btf.IntSigned})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := b.AddStruct("s", 4, []builder.Member{{Name: "a" + strconv.Itoa(i), Type: i32}}); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := b.Marshal(builder.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		p, err := newPrinter(context.Background(), s, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := newPrinted(0)
		added := 0
		for id := btf.TypeID(2); id <= btf.TypeID(n+1); id++ {
			if seen.add(p, id, p.class(id)) {
				added++
			}
			p.release(id)
		}
		t.Logf("mnames-%d: %d comparisons", n, seen.compares)
		if added != n {
			t.Errorf("mnames-%d: %d printed, want all", n, added)
		}
		if seen.compares > 8*n {
			t.Errorf("mnames-%d: %d comparisons, want at most %d", n, seen.compares, 8*n)
		}
	}
}
