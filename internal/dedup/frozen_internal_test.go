package dedup

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestFrozenOrder: a frozen table yields the entries of every key in the
// order, and with the epochs and insertion numbers, of a table filled
// with the same keys; and a table on it, as one on that table.
func TestFrozenOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 100, 3000} {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = rng.Uint64N(uint64(n/3+1)) * 0x9e3779b97f4a7c15 // chains of several
		}
		linked := newTable(nil, 0)
		// Ids 2, 4, 6...: the odd ones are VARs, which are not filed.
		kinds := make([]uint8, 2*n+1)
		for i := range kinds {
			kinds[i] = uint8(btf.KindVar)
			if i%2 == 0 {
				kinds[i] = uint8(btf.KindInt)
			}
		}
		fb := newFrozenBuilder(n, newIDRank(kinds, isFiled))
		slots := make([]uint32, n)
		for i, h := range keys {
			linked.add(h, uint32(2*i+2))
			var e entry
			e, slots[i] = fb.count(h, uint32(2*i+2))
			l := linked.ents[len(linked.ents)-1]
			if l.prev, l.next = 0, 0; e != l {
				t.Fatalf("n=%d: entry %d counted as %+v, filed as %+v", n, i, e, l)
			}
		}
		fb.layout()
		for i := n - 1; i >= 0; i-- {
			fb.place(slots[i], uint32(2*i+2))
		}
		fz := fb.table()
		if fz.sz != linked.sz || fz.cap != linked.cap || fz.grows != linked.grows {
			t.Fatalf("n=%d: frozen size %d/%d/%d, want %d/%d/%d", n, fz.sz, fz.cap, fz.grows, linked.sz, linked.cap, linked.grows)
		}
		onLinked, onFrozen := newTable(linked, 0), newTable(fz, 0)
		for i := range n / 2 {
			onLinked.add(keys[i], uint32(2*n+i+1))
			onFrozen.add(keys[i], uint32(2*n+i+1))
		}
		for _, h := range append(keys, 12345) {
			for g := range uint32(3) {
				if a, b := walked(linked, h, linked.grows+g), walked(fz, h, fz.grows+g); !slices.Equal(a, b) {
					t.Fatalf("n=%d key %#x grows+%d: frozen %v, want %v", n, h, g, b, a)
				}
				if a, b := walked(onLinked, h, onLinked.grows+g), walked(onFrozen, h, onFrozen.grows+g); !slices.Equal(a, b) {
					t.Fatalf("n=%d key %#x grows+%d: on frozen %v, want %v", n, h, g, b, a)
				}
			}
		}
		fz.free()
	}
}

func walked(t *table, h uint64, grows uint32) []entry {
	var out []entry
	t.walk(hashKey(h), grows, func(e entry) bool {
		out = append(out, entry{id: e.id, epoch: e.epoch, seq: e.seq})
		return true
	})
	return out
}

// TestBaseBytesPerType pins what a Base of the Debian 6.1 vmlinux holds
// in its signatures and table (internal/dedup/BENCH.md, "The Base's
// memory"): 4-byte table entries, depths 1-5 kept only for the kinds that
// keep them, under 36 bytes a type in all (60 before).
func TestBaseBytesPerType(t *testing.T) {
	s, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBase(s, true)
	if err != nil {
		t.Fatal(err)
	}
	if size := unsafe.Sizeof(fent(0)); size != 4 {
		t.Errorf("frozen entries of %d bytes, want 4", size)
	}
	fz := b.table.fz
	if fz == nil || b.table.slots != nil || b.table.ents != nil {
		t.Fatalf("the Base's table is not frozen")
	}
	bytes := len(b.sigs.all)*4 + len(fz.slots)*slotSize + len(fz.ents)*int(unsafe.Sizeof(fent(0)))
	for _, d := range b.sigs.deep {
		if uint32(len(d)) != b.sigs.rank.n {
			t.Errorf("%d signatures of a depth, want %d", len(d), b.sigs.rank.n)
		}
		bytes += len(d) * 4
	}
	if per := float64(bytes) / float64(b.last); per > 36 {
		t.Errorf("signatures and table take %.1f bytes a type, want at most 36", per)
	} else {
		t.Logf("signatures and table: %d bytes, %.1f a type (%d types, %d keep depths 1-%d)", bytes, per, b.last, b.sigs.rank.n, sigDepth)
	}
}

// TestSigHow: the leaves' signatures are taken from depth 0, as
// isSigLeaf says, and every other kind deduplication knows keeps its
// own but FUNC, whose are computed.
func TestSigHow(t *testing.T) {
	for k := btf.Kind(1); int(k) < wire.NumKinds; k++ {
		want := uint8(sigKept)
		switch {
		case isSigLeaf(k):
			want = sigAsDepth0
		case k == btf.KindFunc:
			want = sigComputed
		}
		if sigHow[k] != want {
			t.Errorf("%v: signatures had as %d, want %d", k, sigHow[k], want)
		}
	}
}

// TestBaseSigs: every signature a Base gives, kept, taken from depth 0 or
// computed when asked, is the one computed for every type at every depth
// (as a Base kept them before session 28).
func TestBaseSigs(t *testing.T) {
	s, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBase(s, true)
	if err != nil {
		t.Fatal(err)
	}
	var want [sigTop + 1][]uint32
	child := func(id uint32, k int) uint32 { return want[k][id] }
	for k := range want {
		want[k] = make([]uint32, b.last+1)
		want[k][0] = sigVoid
		for id := uint32(1); id <= b.last; id++ {
			want[k][id] = sigOf(b.rec(id), k, child)
		}
	}
	for id := uint32(0); id <= b.last; id++ {
		for k := range sigDepth + 1 {
			if got := b.sig(id, k); got != want[k][id] {
				t.Fatalf("type %d (%v), depth %d: signature %#x, want %#x", id, btf.Kind(b.kinds[id]), k, got, want[k][id])
			}
		}
		if id > 0 {
			if got := b.sig(id, sigTop); got != want[sigTop][id] {
				t.Fatalf("type %d (%v): top signature %#x, want %#x", id, btf.Kind(b.kinds[id]), got, want[sigTop][id])
			}
		}
	}
}
