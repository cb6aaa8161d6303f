package dedup

import "testing"

// TestRefTableLazy checks that a table reserved for many types but
// keeping few (a million equal pointers keep one) leaves its slots
// unpopulated, and that one that fills is populated and still finds
// every entry.
func TestRefTableLazy(t *testing.T) {
	var tab refTable
	defer tab.free()
	tab.reserve(1 << 20)
	ptr := record{0x02000000, 0, 1} // a pointer to type 1
	for id := uint32(2); id < 10_000; id++ {
		if got := tab.find(nil, ptr, id); got != 2 {
			t.Fatalf("find of the same pointer as %d = %d, want 2", id, got)
		}
	}
	if !tab.lazy || tab.n != 1 {
		t.Fatalf("after equal pointers: lazy %v, %d entries; want lazy, 1", tab.lazy, tab.n)
	}

	fill := len(tab.slots)*refSlotSize/lazyBytes + 2
	for i := range fill {
		r := record{0x02000000, 0, uint32(100 + i)}
		if got := tab.find(nil, r, uint32(100_000+i)); got != uint32(100_000+i) {
			t.Fatalf("new pointer %d filed as %d", i, got)
		}
	}
	if tab.lazy {
		t.Fatalf("%d entries in %d slots: still lazy", tab.n, len(tab.slots))
	}
	for i := range fill {
		r := record{0x02000000, 0, uint32(100 + i)}
		if got := tab.find(nil, r, 1); got != uint32(100_000+i) {
			t.Fatalf("pointer %d found as %d after populating", i, got)
		}
	}
	if got := tab.find(nil, ptr, 5); got != 2 {
		t.Fatalf("first pointer found as %d after populating, want 2", got)
	}
}
