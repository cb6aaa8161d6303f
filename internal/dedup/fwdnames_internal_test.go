package dedup

import (
	"testing"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// TestFwdNames checks resolveFwds' index against a Go map: names added
// twice, the empty name (key 0), names that share their low bits, and
// lookups of names never added.
func TestFwdNames(t *testing.T) {
	const n = 50_000
	var mem *mmap.Region
	defer mmap.Free(&mem)
	f := newFwdNames(n, &mem)
	want := map[uint32]bool{}
	for i := range uint32(n) {
		name := i * 4096 // the same low bits
		if i%3 == 0 {
			name = i / 3 // and some added twice, 0 among them
		}
		f.add(name)
		want[name] = true
	}
	for name := range want {
		e := f.find(name)
		if e == nil || e.name != name || e.seen || e.cand != 0 {
			t.Fatalf("find(%d) = %+v", name, e)
		}
		e.cand, e.seen = name+1, true
	}
	for name := range want {
		if e := f.find(name); e.cand != name+1 || !e.seen {
			t.Fatalf("find(%d) after setting: %+v", name, e)
		}
	}
	for _, name := range []uint32{1<<32 - 1, 4096*n + 4096, 7} {
		if e := f.find(name); e != nil && !want[name] {
			t.Errorf("find(%d) = %+v, never added", name, e)
		}
	}
}
