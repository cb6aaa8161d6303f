package mmap

import (
	"testing"

	"golang.org/x/sys/unix"
)

// resident returns which pages of b are in memory.
func resident(t *testing.T, b []byte) []bool {
	t.Helper()
	in, err := Resident(b)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func populateSupported(t *testing.T) {
	t.Helper()
	g, err := New(pageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Free()
	if err := unix.Madvise(g.Bytes(), unix.MADV_POPULATE_WRITE); err != nil {
		t.Skipf("MADV_POPULATE_WRITE: %v (Linux 5.14 and later)", err)
	}
}

// TestPopulate checks that Populate makes exactly the pages of its range
// resident, and leaves the contents alone.
func TestPopulate(t *testing.T) {
	populateSupported(t)
	g, err := New(16 * pageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Free()
	b := g.Bytes()
	b[3*pageSize] = 7
	g.Populate(2*pageSize+1, 3*pageSize) // pages 2 to 5
	g.Populate(20*pageSize, pageSize)    // beyond the end: nothing
	for i, in := range resident(t, b) {
		if want := i >= 2 && i <= 5; in != want {
			t.Errorf("page %d resident %v, want %v", i, in, want)
		}
	}
	if b[3*pageSize] != 7 || b[2*pageSize] != 0 {
		t.Error("Populate changed the contents")
	}
}

// TestCover checks that Cover populates ahead of a growing slice once it
// is MinPopulate bytes long, what is not written yet, and nothing of a
// slice outside the region.
func TestCover(t *testing.T) {
	populateSupported(t)
	var g *Region
	s := Append[uint32](nil, 2*MinPopulate/4, &g)
	defer g.Free()
	Cover(s, g, 10) // small: nothing
	if in := resident(t, g.Bytes()); in[0] {
		t.Fatal("Cover of 10 elements populated")
	}
	n := MinPopulate / 4
	s = s[:n/2] // written, but for the test, never touched
	Cover(s, g, n)
	in := resident(t, g.Bytes())
	for i, want := range []bool{false, true, true, false} {
		p := []int{0, MinPopulate / 2, MinPopulate + aheadChunk - 1, MinPopulate + aheadChunk}[i] / pageSize
		if in[p] != want {
			t.Errorf("page %d resident %v, want %v", p, in[p], want)
		}
	}
	s = Append(s[:n], len(g.Bytes())/4, &g) // moved or grown in place
	Cover(s, g, cap(s))
	for i, in := range resident(t, g.Bytes()) {
		if !in && i >= MinPopulate/pageSize {
			t.Fatalf("page %d of %d not resident after Cover of the whole slice", i, len(g.Bytes())/pageSize)
		}
	}
	heap := make([]uint32, MinPopulate)
	other, err := New(MinPopulate * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Free()
	Cover(heap, other, MinPopulate) // not in other: nothing
	if other.populated != 0 {
		t.Errorf("Cover of a heap slice populated %d bytes", other.populated)
	}
}

// TestPopulateBytes checks PopulateBytes on an unaligned part of a
// mapping: only its whole pages.
func TestPopulateBytes(t *testing.T) {
	populateSupported(t)
	g, err := New(8 * pageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Free()
	b := g.Bytes()
	PopulateBytes(b[pageSize/2 : 4*pageSize+1])
	for i, in := range resident(t, b) {
		if want := i >= 1 && i <= 4; in != want {
			t.Errorf("page %d resident %v, want %v", i, in, want)
		}
	}
	PopulateBytes(nil)
}
