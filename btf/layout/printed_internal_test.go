package layout

import (
	"context"
	"math/bits"
	"strconv"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// TestPrintedWalksLogarithmic pins the comparisons the tree of printed
// structs makes for structs "s" of one layout and different member names,
// all printed: mnames-N, "s" { int a<i>; }, and wnames-N,
// "s" { int a<i>; int; }, whose anonymous member matches any name (pahole
// 1.24 takes some 10 ms on 5,000 of either). Each struct walks the
// red-black tree, at most 2*log2(n+1) deep, not every struct printed
// before: wnames was N*N/2 comparisons with a table hashed by layout.
func TestPrintedWalksLogarithmic(t *testing.T) {
	for _, wild := range []bool{false, true} {
		for _, n := range []int{1000, 4000} {
			b := builder.New()
			i32, err := b.AddInt("int", 4, btf.IntInfo{Bits: 32, Encoding: btf.IntSigned})
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				ms := []builder.Member{{Name: "a" + strconv.Itoa(i), Type: i32}}
				if wild {
					ms = append(ms, builder.Member{Type: i32, BitOffset: 32})
				}
				if _, err := b.AddStruct("s", uint32(4*len(ms)), ms); err != nil {
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
			seen := newPrinted(p)
			added := 0
			for id := btf.TypeID(2); id <= btf.TypeID(n+1); id++ {
				if seen.add(p, id, p.class(id)) {
					added++
				}
				p.release(id)
			}
			bound := n * 2 * bits.Len(uint(n+1))
			t.Logf("wild %v, n %d: %d comparisons (bound %d)", wild, n, seen.compares, bound)
			if added != n {
				t.Errorf("wild %v, n %d: %d printed, want all", wild, n, added)
			}
			if seen.compares > bound {
				t.Errorf("wild %v, n %d: %d comparisons, want at most %d", wild, n, seen.compares, bound)
			}
		}
	}
}
