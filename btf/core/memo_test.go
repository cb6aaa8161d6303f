package core

import "testing"

// TestMemoBounded checks that a memo holds no more than memoMax entries
// however many distinct records it is given.
func TestMemoBounded(t *testing.T) {
	var m memo[int]
	for i := range 3 * memoMax {
		m.put(reloKey{off: uint32(i)}, i)
		if len(m.m) > memoMax {
			t.Fatalf("%d entries after %d puts", len(m.m), i+1)
		}
		if v, ok := m.get(reloKey{off: uint32(i)}); !ok || v != i {
			t.Fatalf("entry %d: %d, %v", i, v, ok)
		}
	}
}
