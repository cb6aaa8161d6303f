package dedup_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// Issue 37: N anonymous records, each the only member of the next, share
// one shallow hash and one signature, and libbpf compares each with every
// one before it down to the bottom (cubic in N).

func nestedBTF(tb testing.TB, n int, v hostile.NestedVariant) []byte {
	tb.Helper()
	raw, err := hostile.Nested(n, v)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// TestLibbpfNested compares the deduplication of nested records with
// libbpf's: the chain alone and twice (the second copy merges into the
// first), with anonymous FWDs (which the deep signatures must treat as
// equivalent to any anonymous record where they are referred to), with a
// cycle beside the chain (cycle.go), with pointers to anonymous FWDs, and
// with an anonymous FWD as the member of a record shaped like the chain's
// (full.go), alone, with a FWD reached from the bottom of the chain, and
// with that FWD unsafe (a pointer to the first record, to every record,
// members through typedefs, FWDs at several depths: fullCollapse), and
// with the records linked by pointers (exact.go: every link, every other
// one, through typedefs, with the FWD in the middle, twice).
func TestLibbpfNested(t *testing.T) {
	libbpfdedup(t)
	compat := compatOf(t)
	dir := t.TempDir()
	for _, v := range hostile.NestedVariants() {
		for _, n := range []int{1, 9, 40, 200} {
			for _, deep := range []bool{false, true} {
				t.Run(fmt.Sprintf("v%d-n%d-deep%v", v, n, deep), func(t *testing.T) {
					raw := nestedBTF(t, n, v)
					in := writeTemp(t, dir, fmt.Sprintf("in-%d-%d.btf", v, n), raw)
					out := filepath.Join(dir, fmt.Sprintf("out-%d-%d.btf", v, n))
					runRef(t, "-o", out, in)
					equalBTF(t, dedupOne(t, raw, compat, deep), readFile(t, out), nil)
				})
			}
		}
	}
}

// TestDeepGolden checks the libbpf 1.8 goldens with every candidate
// filtered by deep signatures (which the struct pass does only after long
// failures): a module appended to itself on the base, and with
// KMETA_HEAVY=1 the 1,121 modules merged.
func TestDeepGolden(t *testing.T) {
	vm, base := debian(t)
	cases := map[string][]string{"af_key-x2": {"af_key", "af_key"}, "kvm-x2": {"kvm", "kvm"}, "xfs-x2": {"xfs", "xfs"}}
	if os.Getenv("KMETA_HEAVY") == "1" {
		cases["modules-merged"] = mergedOrder(t)
	}
	for g, names := range cases {
		t.Run(g, func(t *testing.T) {
			m := dedup.New(base, dedup.Options{})
			dedup.DeepFromStart(m)
			for _, name := range names {
				if err := m.AddSpec(module(t, name)); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := m.Dedup(builder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			equalBTF(t, raw, golden(t, g), vm)
		})
	}
}

// TestNestedSteps checks that deduplicating a chain of 3,000 nested
// records takes a number of steps linear in N (9d54fd8 took about N^3/12,
// 2.25 billion), alone, twice (which must come out as once), beside
// anonymous FWDs that nothing or pointers refer to, reaching a cycle
// (cycle.go), and beside a struct whose member is an anonymous FWD union
// (full.go), with or without a FWD at the bottom of the chain, and with
// that FWD unsafe (fullCollapse): a pointer to the first record, to every
// record, members through typedefs, FWDs at several depths; and with the
// records linked by pointers (exact.go): every link, every other one,
// through typedefs, the FWD in the middle, the chain twice.
func TestNestedSteps(t *testing.T) {
	const n = 3000
	types := map[hostile.NestedVariant]int{hostile.NestedPlain: n + 2, hostile.NestedTwice: n + 2,
		hostile.NestedFwd: n + 4, hostile.NestedCycle: n + 4, hostile.NestedFwdPtr: n + 6,
		hostile.NestedFwdMember: n + 2, hostile.NestedFwdBottom: n + 4, hostile.NestedFwdBottomPtr: n + 5,
		hostile.NestedFwdPtrEvery: 2*n + 4, hostile.NestedFwdTypedef: 2*n + 6, hostile.NestedFwdDepths: n + 7,
		hostile.NestedFwdPtrLinks: 2*n + 4, hostile.NestedPtrLinksAlternate: n + n/2 + 4,
		hostile.NestedPtrLinksTypedef: 3*n + 4, hostile.NestedPtrLinksMiddle: 2*n + 4, hostile.NestedPtrLinksTwice: 2*n + 4}
	for v, want := range types {
		m := dedup.New(nil, dedup.Options{})
		if err := m.AddSpec(parse(t, nestedBTF(t, n, v), nil)); err != nil {
			t.Fatal(err)
		}
		raw, steps, err := dedup.DedupSteps(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := parse(t, raw, nil).NumTypes(); got != want {
			t.Errorf("variant %d: %d types out, want %d", v, got, want)
		}
		// The candidate lists stay quadratic (each struct meets every
		// struct before it in its bucket), but those are skipped in a
		// word comparison once the failed graph comparisons have taken
		// their budget (2^20 steps).
		if limit := uint32(2<<20 + 100*n); steps > limit {
			t.Errorf("variant %d: %d steps, want at most %d", v, steps, limit)
		}
	}
}

// TestNestedCancel checks that a context stops a long deduplication
// (records linked by pointers, with an anonymous FWD struct at the bottom:
// 20,000 of them take tens of seconds, in the comparisons before exact
// depths filter and in their rounds of refinement), and that a canceled
// context stops it before it starts.
func TestNestedCancel(t *testing.T) {
	raw := nestedBTF(t, 20000, hostile.NestedFwdPtrLinks)
	for _, wait := range []time.Duration{0, 50 * time.Millisecond} {
		m := dedup.New(nil, dedup.Options{})
		if err := m.AddSpec(parse(t, raw, nil)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if wait == 0 {
			cancel()
		} else {
			time.AfterFunc(wait, cancel)
		}
		_, err := m.DedupContext(ctx, builder.Options{})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled after %v: %v, want context.Canceled", wait, err)
		}
	}
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// checkDeep checks that deduplicating specs with every candidate filtered
// by deep signatures, and with failed pairs kept from the first failure,
// gives want, the output without.
func checkDeep(tb testing.TB, base *dedup.Base, specs []*btf.Spec, want []byte) {
	tb.Helper()
	for name, start := range map[string]func(*dedup.Merger){
		"deep signatures": dedup.DeepFromStart, "failed pairs": dedup.FailsFromStart,
	} {
		m := dedup.New(base, dedup.Options{})
		start(m)
		for _, s := range specs {
			if err := m.AddSpec(s); err != nil {
				tb.Fatal(err)
			}
		}
		got, err := m.Dedup(builder.Options{})
		if err != nil {
			tb.Fatalf("with %s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			tb.Fatalf("%s changed the output", name)
		}
	}
}

// TestLazyDangling: a lazily opened Spec whose struct refers to a type past
// the last must fail with the error Parse gives, its references checked
// before the passes could index out of range.
func TestLazyDangling(t *testing.T) {
	raw, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	_, want := btf.Parse(raw, btf.Options{})
	if want == nil {
		t.Fatal("Parse accepted a dangling type id")
	}
	s, err := btf.Parse(raw, btf.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dedup.Specs(nil, s); err == nil || !strings.Contains(err.Error(), want.Error()) {
		t.Errorf("Specs: %v, want %v", err, want)
	}
	if _, err := dedup.NewBase(s, dedup.Options{}); err == nil || !strings.Contains(err.Error(), want.Error()) {
		t.Errorf("NewBase: %v, want %v", err, want)
	}
}
