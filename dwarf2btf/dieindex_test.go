package dwarf2btf

import (
	"math/rand/v2"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestDIEIndex checks the index against a map on offsets added in and
// out of order, reserved or not, some twice: the last add wins, and a
// reserved offset never added is not found.
func TestDIEIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var x dieIndex
	for round := range 50 {
		base, size := uint32(r.IntN(1000)), uint32(1+r.IntN(5000))
		x.reset(base, size)
		want := map[uint32]int32{}
		pos := uint32(0)
		for range r.IntN(300) {
			off := base + pos
			switch r.IntN(6) {
			case 0: // a container: reserved now, added later
				x.reserve(off)
				v := int32(1 + r.IntN(1<<20))
				x.add(off, v)
				want[off] = v
			case 1: // out of order, unreserved
				o := base + uint32(r.IntN(int(size)))
				v := int32(1 + r.IntN(1<<20))
				x.add(o, v)
				want[o] = v
			case 2: // reserved, never added
				x.reserve(off)
			default:
				v := int32(1 + r.IntN(1<<20))
				x.add(off, v)
				want[off] = v
			}
			pos += uint32(1 + r.IntN(40))
			if pos >= size {
				break
			}
		}
		x.add(base+size, 7) // outside: ignored
		x.build()
		for o := base - min(base, 70); o < base+size+70; o++ {
			if got := x.get(o); got != want[o] {
				t.Fatalf("round %d: get(%d) = %d, want %d", round, o, got, want[o])
			}
		}
	}
}

// TestDIEIndexOrder checks that the loader marks every offset it indexes
// in increasing order, reserving the containers' and parameters' (the
// index's constant-time path), on gcc's and clang's DWARF.
func TestDIEIndexOrder(t *testing.T) {
	for _, name := range []string{"elf/vsock_loopback.ko.gz", "dwarf/tags-x86_64.o.gz", "dwarf/kinds-x86_64.o.gz", "dwarf/multi-x86_64.o.gz"} {
		o, d, units := testUnits(t, testfixtures.Read(t, name))
		l := &loader{cu: &cuData{}}
		cache := map[abbrevKey]*abbrevTable{}
		indexed := 0
		for _, u := range units {
			r, err := d.newUnitReader(u, cache)
			if err != nil {
				t.Fatal(err)
			}
			l.r = r
			l.cu.reset(u)
			if err := l.load(); err != nil {
				t.Fatal(err)
			}
			if n := len(l.cu.idx.late); n > 0 {
				t.Errorf("%s: unit at %#x: %d offsets indexed out of order", name, u.off, n)
			}
			indexed += len(l.cu.idx.vals)
		}
		o.free()
		if indexed == 0 {
			t.Errorf("%s: nothing indexed", name)
		}
	}
}
