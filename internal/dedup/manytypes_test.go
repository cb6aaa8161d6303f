package dedup_test

import (
	"encoding/binary"
	"fmt"
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
	t.Run("libbpf", func(t *testing.T) { equalLibbpf(t, raw, got) })
}

// equalLibbpf checks that got, raw deduplicated with CompatLibbpf18, is
// what the libbpf reference writes for raw (with its version's rules).
func equalLibbpf(t *testing.T, raw, got []byte) {
	compat := compatOf(t)
	dir := t.TempDir()
	in, out := writeTemp(t, dir, "in.btf", raw), filepath.Join(dir, "out.btf")
	runRef(t, "-o", out, in)
	if compat != dedup.CompatLibbpf18 {
		got = dedupOne(t, raw, compat, false)
	}
	equalBTF(t, got, readFile(t, out), nil)
}

// longNames returns raw BTF in the host's byte order of n ints, each
// named by its own 250-byte string, and then the first dup of them again,
// which merge into the first ones: n types and 251*n+1 bytes of strings
// after deduplication. It is written by hand because a Builder holds
// strings to the kernel's limit.
func longNames(n, dup int) []byte {
	strs := []byte{0}
	var types []byte
	for i := range n + dup {
		off := uint32(len(strs))
		if i >= n {
			off = uint32(1 + 251*(i-n))
		} else {
			strs = fmt.Appendf(strs, "%0250d\x00", i)
		}
		for _, w := range []uint32{off, wire.Info(wire.KindInt, 0, false), 4, wire.IntWord(1, 0, 32)} {
			types = wire.AppendWord(types, w)
		}
	}
	h := wire.Header{Version: wire.Version, HdrLen: wire.HeaderLen, TypeLen: uint32(len(types)),
		StrOff: uint32(len(types)), StrLen: uint32(len(strs))}
	raw := wire.AppendHeader(nil, h, binary.NativeEndian)
	return append(append(raw, types...), strs...)
}

// TestDedupPastKernelStrings checks that an output of more string bytes
// than the kernel accepts (wire.MaxNameOffset+1) is written, as libbpf's
// btf__dedup writes it (its own limit is wire.MaxStrLen), and that it is
// libbpf's output byte for byte where the reference program runs. About
// 67,000 types of 250-byte names: a second without the reference.
func TestDedupPastKernelStrings(t *testing.T) {
	n := (wire.MaxNameOffset+1)/251 + 2
	raw := longNames(n, 1000)
	got := dedupOne(t, raw, dedup.CompatLibbpf18, false)
	s := parse(t, got, nil)
	if strs, _ := s.StringSection(); len(strs) <= wire.MaxNameOffset+1 || s.LastID() != btf.TypeID(n) {
		t.Fatalf("%d types and %d bytes of strings after deduplication, want %d and more than %d",
			s.LastID(), len(strs), n, wire.MaxNameOffset+1)
	}
	t.Run("libbpf", func(t *testing.T) { equalLibbpf(t, raw, got) })
}
