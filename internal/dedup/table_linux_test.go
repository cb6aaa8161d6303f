package dedup

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages counts the pages of b that are in memory (mincore).
func residentPages(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+4095)/4096)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// populates reports whether the kernel populates mappings
// (MADV_POPULATE_WRITE, Linux 5.14 and later).
func populates() bool {
	b, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return false
	}
	defer unix.Munmap(b)
	return unix.Madvise(b, unix.MADV_POPULATE_WRITE) == nil
}

// TestTableLazy checks that a table of canonical types sized by a hint
// far above what it files (900,000 structs and typedefs of one name file
// two chains) leaves its slots unpopulated, and that one that fills is
// populated and still finds every chain in libbpf's order.
func TestTableLazy(t *testing.T) {
	if unsafe.Sizeof(slot{}) != slotSize || unsafe.Sizeof(refSlot{}) != refSlotSize {
		t.Fatalf("slots of %d and %d bytes, want %d and %d", unsafe.Sizeof(slot{}), unsafe.Sizeof(refSlot{}), slotSize, refSlotSize)
	}
	tab := newTable(nil, 900_000)
	defer tab.free()
	if tab.slotsMem == nil {
		t.Skip("the slots are not in a mapping")
	}
	shared := []uint64{mix(1, 1<<30), mix(2, 1<<30)} // a struct's and a typedef's key
	for id := uint32(1); id <= 2_000; id++ {
		tab.add(shared[id%2], id)
	}
	pages := residentPages(t, tab.slotsMem.Bytes())
	if !tab.lazy || pages > 4 {
		t.Fatalf("2 chains in %d slots: lazy %v, %d pages resident; want lazy, at most 4", len(tab.slots), tab.lazy, pages)
	}

	fill := len(tab.slots)*slotSize/lazyBytes + 2
	for i := range fill {
		tab.add(mix(0, uint32(i)+1), uint32(10_000+i))
	}
	if tab.lazy {
		t.Fatalf("%d chains in %d slots: still lazy", tab.used, len(tab.slots))
	}
	if pages, all := residentPages(t, tab.slotsMem.Bytes()), len(tab.slotsMem.Bytes())/4096; pages != all && populates() {
		t.Errorf("%d of %d pages resident once populated", pages, all)
	}
	for i := range fill {
		var got []uint32
		for id := range tab.candidates(hashKey(mix(0, uint32(i)+1))) {
			got = append(got, id)
		}
		if len(got) != 1 || got[0] != uint32(10_000+i) {
			t.Fatalf("chain %d after populating: %v, want [%d]", i, got, 10_000+i)
		}
	}
	n := 0
	for id := range tab.candidates(hashKey(shared[0])) {
		if id%2 != 0 {
			t.Fatalf("id %d filed under the other key", id)
		}
		n++
	}
	if n != 1_000 {
		t.Fatalf("%d candidates under the first key, want 1,000", n)
	}
}
