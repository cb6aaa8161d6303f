package builder

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixSort checks the string index's sort against slices.Sort on
// slots with distinct high words (output offsets) and any low words.
func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 70000} {
		for _, span := range []uint32{1 << 8, 1 << 20, 1 << 31} {
			if uint64(span) < uint64(n) {
				continue
			}
			seen := map[uint32]bool{}
			a := make([]uint64, 0, n)
			for len(a) < n {
				hi := 1 + r.Uint32N(span)
				if !seen[hi] {
					seen[hi] = true
					a = append(a, uint64(hi)<<32|uint64(r.Uint32()))
				}
			}
			want := slices.Sorted(slices.Values(a))
			top := uint32(0)
			for hi := range seen {
				top = max(top, hi)
			}
			radixSort(a, 32+uint(bits.Len32(top)), 32)
			if !slices.Equal(a, want) {
				t.Fatalf("n %d span %d: not sorted", n, span)
			}
		}
	}
}
