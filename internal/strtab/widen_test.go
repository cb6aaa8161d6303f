package strtab

import (
	"bytes"
	"fmt"
	"testing"
)

// TestWiden checks that a Table widened to uint64 slots keeps every key
// (base strings at the base's lowest offset, including a repeated one, own
// strings where they were added) and goes on adding past the 24 offset
// bits of the narrow slots, for each of the options.
func TestWiden(t *testing.T) {
	for _, opts := range []Options{{}, {Dense: true}, {Mapped: true}, {Hint: 1000}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			base := NewBase[uint32]([][]byte{[]byte("\x00a\x00bb\x00a\x00ccc\x00")}, opts)
			n := NewTable(base, 12, opts)
			keys := map[string]uint32{"": 0, "a": 1, "bb": 3, "ccc": 8}
			for i := range 1000 {
				s := fmt.Sprintf("own%d", i)
				k, ok := n.Intern([]byte(s))
				if !ok {
					t.Fatalf("Intern(%q) failed", s)
				}
				keys[s] = k
			}
			w := Widen(&n)
			for s, k := range keys {
				if got, ok := w.Intern([]byte(s)); !ok || got != k {
					t.Errorf("widened Intern(%q) = %d, %v; want %d", s, got, ok, k)
				}
			}
			// A string past what a uint32 slot's offset holds.
			w.Own.AppendRaw(append(bytes.Repeat([]byte{'x'}, 1<<24), 0))
			k, ok := w.Intern([]byte("past"))
			if want := 12 + uint32(len(w.Own.data)) - 5; !ok || k != want || k <= 1<<24 {
				t.Fatalf("Intern past 2^24 = %d, %v; want %d", k, ok, want)
			}
			if got, ok := w.Intern([]byte("past")); !ok || got != k {
				t.Errorf("Intern(past) again = %d, %v; want %d", got, ok, k)
			}
			if got, ok := w.Intern([]byte("own999")); !ok || got != keys["own999"] {
				t.Errorf("Intern(own999) after = %d, %v", got, ok)
			}
			w.Own.Free()
		})
	}
}
