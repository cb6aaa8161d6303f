package dedup

import (
	"math/rand/v2"
	"testing"
)

// TestStack checks the stack against a slice through pushes and pops that
// cross the first chunk's growth and the chunks' ends, and after resets.
func TestStack(t *testing.T) {
	var s stack[uint32]
	var want []uint32
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 200_000 {
		switch {
		case step%50_000 == 0:
			s.reset()
			want = want[:0]
		case len(want) == 0 || r.IntN(100) < 55:
			v := r.Uint32()
			s.push(v)
			want = append(want, v)
		default:
			s.pop()
			want = want[:len(want)-1]
		}
		if s.n != len(want) {
			t.Fatalf("step %d: %d frames, want %d", step, s.n, len(want))
		}
		if len(want) > 0 && *s.top() != want[len(want)-1] {
			t.Fatalf("step %d: top %d, want %d", step, *s.top(), want[len(want)-1])
		}
	}
	if len(s.chunks) < 2 {
		t.Fatalf("the walk never left the first chunk (%d chunks)", len(s.chunks))
	}
}
