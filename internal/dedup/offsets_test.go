package dedup

import "testing"

// TestOffsets checks offsets against a plain slice, with blocks whose
// distances fit in 16 bits and blocks that must be wide, through
// truncations to every kind of boundary.
func TestOffsets(t *testing.T) {
	var o offsets
	want := []uint32{0}
	o.push(0)
	v := uint32(0)
	for i := 1; i < 1000; i++ {
		step := uint32(3 + i%7)
		if i%97 == 0 || (i >= 300 && i < 310) {
			step = 70000 // a record too long for a 16-bit distance
		}
		v += step
		o.push(v)
		want = append(want, v)
	}
	check := func(what string) {
		t.Helper()
		if o.len() != len(want) {
			t.Fatalf("%s: %d entries, want %d", what, o.len(), len(want))
		}
		for i, w := range want {
			if got := o.at(uint32(i)); got != w {
				t.Fatalf("%s: entry %d = %d, want %d", what, i, got, w)
			}
		}
	}
	check("appended")
	if len(o.wide) == 0 {
		t.Fatal("no wide block: the test does not exercise them")
	}
	for _, n := range []int{999, 640, 320, 305, 300, 129, 128, 65, 64, 1} {
		o.truncate(n)
		want = want[:n]
		check("truncated")
		// Grow again a little: truncation must leave a consistent tail.
		for range 3 {
			v = want[len(want)-1] + 70001
			o.push(v)
			want = append(want, v)
		}
		check("regrown")
		o.truncate(n)
		want = want[:n]
	}
}
