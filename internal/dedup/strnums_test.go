package dedup

import (
	"testing"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// TestStrNums numbers far more offsets than the section ends strings
// (names pointing into strings, at their suffixes), so that the table
// grows several times, and checks every number against a map, also after
// a reset for the next input reuses the mapping.
func TestStrNums(t *testing.T) {
	var g *mmap.Region
	defer mmap.Free(&g)
	var nums strNums
	sec := []byte("\x00abcdefghijklmnopqrstuvwxyz\x00")
	for round := range 2 {
		nums.reset(sec, &g)
		want := map[uint32]uint32{}
		for i := range uint32(5000) {
			off := i*7919%100003 + uint32(round)
			if _, ok := want[off]; ok {
				continue
			}
			if _, ok := nums.get(off); ok {
				t.Fatalf("round %d: offset %d numbered before it was put", round, off)
			}
			j := uint32(len(want))
			nums.put(off, j, &g)
			want[off] = j
		}
		for off, j := range want {
			if got, ok := nums.get(off); !ok || got != j {
				t.Fatalf("round %d: offset %d: got %d, %v, want %d", round, off, got, ok, j)
			}
		}
		if _, ok := nums.get(200000); ok {
			t.Fatalf("round %d: an offset never put is numbered", round)
		}
	}
}
