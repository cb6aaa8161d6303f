package dedup_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestMixedRingSteps checks that a ring through every reference kind
// (hostile.MixedRing: const, volatile, typedef, pointer, struct, array, in
// turn) takes a quadratic number of steps, not libbpf's cubic one: each
// struct and typedef is compared with every one before it, and a
// comparison walks the ring to where it is cut (failmemo.go). Main took
// 9.2 million steps at n = 1,000, now 151,080; the bound is n*n/4.
func TestMixedRingSteps(t *testing.T) {
	const n = 1000
	out, steps, err := dedup.DedupSteps(ringMerger(t, n))
	if err != nil {
		t.Fatal(err)
	}
	if got := parse(t, out, nil).NumTypes(); got != n+2 {
		t.Errorf("%d types out, want %d (none is a duplicate)", got, n+2)
	}
	t.Logf("%d steps", steps)
	if limit := uint32(n * n / 4); steps > limit {
		t.Errorf("%d steps, want at most %d", steps, limit)
	}
}

// TestLibbpfMixedRing compares the deduplication of mixed rings with
// libbpf's, whole (each ring cut where its period ends early) and of a
// whole number of periods, with and without deep signatures from the
// start.
func TestLibbpfMixedRing(t *testing.T) {
	libbpfdedup(t)
	compat := compatOf(t)
	dir := t.TempDir()
	for _, n := range []int{6, 7, 60, 64, 301, 600} {
		raw, err := hostile.BuildVariant(hostile.MixedRing, n)
		if err != nil {
			t.Fatal(err)
		}
		in := writeTemp(t, dir, fmt.Sprintf("ring-%d.btf", n), raw)
		out := filepath.Join(dir, fmt.Sprintf("out-%d.btf", n))
		runRef(t, "-o", out, in)
		for _, deep := range []bool{false, true} {
			equalBTF(t, dedupOne(t, raw, compat, deep), readFile(t, out), nil)
		}
	}
}

// dedupOne deduplicates raw alone, with every filter from the start if
// deep (DeepFromStart).
func dedupOne(tb testing.TB, raw []byte, compat dedup.Compat, deep bool) []byte {
	tb.Helper()
	m := dedup.New(nil, dedup.Options{Compat: compat})
	if deep {
		dedup.DeepFromStart(m)
	}
	if err := m.AddSpec(parse(tb, raw, nil)); err != nil {
		tb.Fatal(err)
	}
	got, err := m.Dedup(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

// TestFailedPairsVariants checks that keeping failed pairs from the first
// failure changes no output, on every hostile variant and nested chain,
// small, alone and appended to itself.
func TestFailedPairsVariants(t *testing.T) {
	var raws [][]byte
	for _, v := range hostile.Variants() {
		raw, err := hostile.BuildVariant(v, 40)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		raws = append(raws, raw)
	}
	for _, v := range hostile.NestedVariants() {
		raws = append(raws, nestedBTF(t, 40, v))
	}
	for _, raw := range raws {
		s := parse(t, raw, nil)
		for _, in := range [][]*btf.Spec{{s}, {s, s}} {
			out, err := dedup.Specs(nil, in...)
			if err != nil {
				continue // refused, as libbpf refuses it
			}
			checkDeep(t, nil, in, out)
		}
	}
}

// TestMixedRingMemo checks that the failed pairs of a mixed ring take
// memory linear in the ring, not quadratic: the runs of pairs each
// comparison keeps are kept as runs (failmemo.go). As pairs, they took
// 16 bytes each, 3.5 MB at n = 4,000 (222 K pairs), 13 MB more peak RSS;
// as runs, about 24 bytes a type (a table at most half full of 24-byte
// runs, doubling: at most 64).
func TestMixedRingMemo(t *testing.T) {
	for _, n := range []int{1000, 4000} {
		m := ringMerger(t, n)
		dedup.FailsFromStart(m)
		_, got, err := dedup.DedupMemo(m)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n = %d: %d bytes", n, got)
		if got == 0 || got > 64*n {
			t.Errorf("n = %d: failed pairs took %d bytes, want 1 to %d", n, got, 64*n)
		}
	}
}

// ringMerger returns a Merger holding a mixed ring of n types.
func ringMerger(t *testing.T, n int) *dedup.Merger {
	t.Helper()
	raw, err := hostile.BuildVariant(hostile.MixedRing, n)
	if err != nil {
		t.Fatal(err)
	}
	m := dedup.New(nil, dedup.Options{})
	if err := m.AddSpec(parse(t, raw, nil)); err != nil {
		t.Fatal(err)
	}
	return m
}
