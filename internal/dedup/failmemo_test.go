package dedup

import (
	"math/rand/v2"
	"testing"
)

// TestRunSet checks the failed runs' table against a Go map, over
// random adds and removes on few keys (long probe runs, removals shifting
// keys back across the table's end) and through clears.
func TestRunSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s runSet
	want := map[uint64]bool{}
	for i := range 200_000 {
		k := failKey(1+r.Uint32N(64), r.Uint32N(1<<r.IntN(12)))
		switch {
		case i%50_000 == 49_999:
			s.clear()
			clear(want)
		case r.IntN(2) == 0:
			s.add(failRun{key: k, left: uint32(i)})
			want[k] = true
		default:
			if r, got := s.remove(k); got != want[k] || got && r.key != k {
				t.Fatalf("step %d: remove(%#x) = %v, want %v", i, k, got, want[k])
			}
			delete(want, k)
		}
		if s.n != len(want) {
			t.Fatalf("step %d: %d keys, want %d", i, s.n, len(want))
		}
	}
	for k := range want {
		if _, ok := s.remove(k); !ok {
			t.Fatalf("key %#x lost", k)
		}
	}
	if s.n != 0 {
		t.Fatalf("%d keys left", s.n)
	}
}
