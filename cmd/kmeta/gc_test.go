package main

import "testing"

// TestWorthFreeing: a forced collection is skipped only on a small heap
// that the collector has never visited, where it would fault in more than
// it frees; freeHeap itself must not fail either way.
func TestWorthFreeing(t *testing.T) {
	for _, tc := range []struct {
		cycles, heap uint64
		want         bool
	}{
		{0, 1 << 20, false},
		{0, freeHeapFrom - 1, false},
		{0, freeHeapFrom, true},
		{0, 200 << 20, true},
		{1, 1 << 20, true},
		{3, 0, true},
	} {
		if got := worthFreeing(tc.cycles, tc.heap); got != tc.want {
			t.Errorf("worthFreeing(%d, %d) = %v, want %v", tc.cycles, tc.heap, got, tc.want)
		}
	}
	freeHeap()
}
