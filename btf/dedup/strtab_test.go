package dedup

import "testing"

// TestStrsetTruncate checks that strings added after a mark are forgotten,
// index and data, and that those before it are still found.
func TestStrsetTruncate(t *testing.T) {
	s := newStrset(0)
	s.data = []byte{0}
	var before []uint32
	for _, w := range []string{"a", "task_struct", "b"} {
		before = append(before, s.add([]byte(w)))
	}
	mark := len(s.data)
	for i := range 200 { // enough to grow the index past its first size
		s.add([]byte{'x', byte(i), byte(i >> 8)})
	}
	s.truncate(mark)
	if len(s.data) != mark || s.count != 3 {
		t.Fatalf("after truncate: %d bytes, %d strings; want %d, 3", len(s.data), s.count, mark)
	}
	for i, w := range []string{"a", "task_struct", "b"} {
		if off, ok := s.find([]byte(w)); !ok || off != before[i] {
			t.Errorf("find(%q) = %d, %v; want %d", w, off, ok, before[i])
		}
	}
	if _, ok := s.find([]byte{'x', 7, 0}); ok {
		t.Error("a string added after the mark is still found")
	}
	if off := s.add([]byte("c")); off != uint32(mark) {
		t.Errorf("next string at %d, want %d", off, mark)
	}
}
