package dedup_test

import (
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// manyArrays returns raw BTF of an int and kept arrays of it, one of each
// length from 0, then a second int and dup arrays of it that merge into
// the first ones: kept+1 types after deduplication.
func manyArrays(tb testing.TB, kept, dup int) []byte {
	tb.Helper()
	b := builder.New()
	b.AllowManyTypes()
	for _, n := range []int{kept, dup} {
		elem, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		if err != nil {
			tb.Fatal(err)
		}
		for i := range n {
			if _, err := b.AddArray(btf.ArrayInfo{Type: elem, Index: elem, Nelems: uint32(i)}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// TestDedupPastKernelLimit checks that an output of more types than the
// kernel accepts (wire.MaxTypeID) is written, as libbpf's btf__dedup
// writes it (its own limit is 2^31-1 types), and that it is libbpf's
// output byte for byte where the reference program runs.
//
// Nothing here is shared between goroutines beyond what smaller tests
// run; under the race detector its million types take half a minute, so
// it skips.
func TestDedupPastKernelLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("a million types under the race detector: run without -race")
	}
	kept := wire.MaxTypeID + 1 // ids 1 to 2^20+1 kept: two past the limit
	raw := manyArrays(t, kept, 1000)
	got := dedupOne(t, raw, dedup.CompatLibbpf18, false)
	s := parse(t, got, nil)
	if last := s.LastID(); last != btf.TypeID(kept+1) {
		t.Fatalf("last id %d after deduplication, want %d", last, kept+1)
	}
	t.Run("libbpf", func(t *testing.T) {
		compat := compatOf(t)
		dir := t.TempDir()
		in, out := writeTemp(t, dir, "in.btf", raw), filepath.Join(dir, "out.btf")
		runRef(t, "-o", out, in)
		if compat != dedup.CompatLibbpf18 {
			got = dedupOne(t, raw, compat, false)
		}
		equalBTF(t, got, readFile(t, out), nil)
	})
}
