package builder

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestMarkNULs checks markNULs' word-at-a-time search against a byte
// loop: a string starts at offset 0 and after every NUL but the last
// byte, on sections of every length around the words' and bytes'
// boundaries, with NULs sparse, dense and at the edges of words.
func TestMarkNULs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for size := 1; size < 300; size++ {
		for _, density := range []int{1, 2, 7, 40} {
			strs := make([]byte, size)
			for i := range strs {
				if r.IntN(density) != 0 {
					strs[i] = byte(1 + r.IntN(255))
				}
			}
			strs[size-1] = 0
			tab := &refStrings{strs: strs, starts: make([]uint64, (size+63)/64)}
			tab.markNULs()
			for off := range strs {
				want := off == 0 || strs[off-1] == 0
				if got := tab.starts[off>>6]&(1<<(off&63)) != 0; got != want {
					t.Fatalf("size %d, density %d: offset %d marked %v, want %v", size, density, off, got, want)
				}
			}
			if size%64 != 0 && tab.starts[len(tab.starts)-1]>>(size%64) != 0 {
				t.Fatalf("size %d: a start marked past the section's end", size)
			}
		}
	}
}

// TestNameHash checks nameHash on every length up to 40 bytes (its word
// loop and both tails): equal strings at different places hash alike,
// and a change to any one byte changes the hash (for these strings and
// this seed; a collision would be a fault of the mix, not of the test).
func TestNameHash(t *testing.T) {
	const seed = 0x9e3779b97f4a7c15
	for n := 1; n <= 40; n++ {
		s := make([]byte, n+3)
		for i := range s {
			s[i] = byte('a' + (i*7)%26)
		}
		a, b := s[:n], append([]byte{'x'}, s[:n]...)[1:]
		h := nameHash(a, seed)
		if nameHash(b, seed) != h {
			t.Fatalf("length %d: equal strings hash differently", n)
		}
		for i := range n {
			c := bytes.Clone(a)
			c[i] ^= 1
			if nameHash(c, seed) == h {
				t.Errorf("length %d: byte %d changed, hash did not", n, i)
			}
		}
		if n < 40 && nameHash(s[:n+1], seed) == h {
			t.Errorf("length %d: one byte more, same hash", n)
		}
	}
}
