package dedup

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestExactAgree checks the refinement of exact depths (exactrefine.go)
// against H computed by its definition (exact.go), depth by depth, for
// every pair of types of every nested variant at small sizes: two types
// agree exactly when their graphs cut at the lower of their depths hash
// alike, and each depth is the FWD depth, capped at the rounds done.
func TestExactAgree(t *testing.T) {
	calls := 0
	for _, v := range hostile.NestedVariants() {
		for _, n := range []int{1, 2, 5, 12} {
			m := filteredNested(t, n, v, func(r *exactRefiner) {
				calls++
				checkAgree(t, fmt.Sprintf("v%d-n%d", v, n), r)
			})
			if _, err := m.Dedup(builder.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if calls < 20 {
		t.Errorf("%d refinements checked, want 20 at least", calls)
	}
}

func checkAgree(t *testing.T, name string, r *exactRefiner) {
	t.Helper()
	e := r.e
	if !e.complete {
		t.Errorf("%s: refinement incomplete", name)
		return
	}
	memo := map[[2]uint32]uint64{}
	var h func(x, k uint32) uint64
	h = func(x, k uint32) uint64 {
		if k == 0 {
			return uint64(r.h0[x])
		}
		if v, ok := memo[[2]uint32{x, k}]; ok {
			return v
		}
		v := mix(h(x, k-1), 1)
		if !r.leaf[x] {
			v = mix(v, r.shallow[x])
			for _, c := range r.refs[r.start[x]:r.start[x+1]] {
				v = mix(v, uint32(h(c, k-1)>>32)^uint32(h(c, k-1)))
			}
		}
		memo[[2]uint32{x, k}] = v
		return v
	}
	size := uint32(len(r.leaf))
	for x := range size {
		if e.d[x] != min(r.fd[x], r.rounds) {
			t.Errorf("%s: type %d: depth %d, FWD depth %d, %d rounds", name, x, e.d[x], r.fd[x], r.rounds)
		}
		for y := range size {
			k := min(e.d[x], e.d[y])
			if want := h(x, k) == h(y, k); e.agree(x, y) != want {
				t.Fatalf("%s: types %d and %d (depths %d, %d): agree %v, want %v",
					name, x, y, e.d[x], e.d[y], !want, want)
			}
		}
	}
}

// TestExactCancel checks that a context done while the struct pass skips
// candidates (records linked by pointers, all in one bucket, which exact
// depths tell apart without a comparison step, so that the pass makes no
// step and calls stopped once per type) ends the deduplication within
// stopEvery more skipped candidates: counted, not timed. The context is
// done from the skipped count itself, half way through the chain, where
// each record meets more than a thousand earlier ones; without the look
// at the context among skips the pass would go on for about stopEvery
// more types, a million more skips.
func TestExactCancel(t *testing.T) {
	const n, at = 3000, 500_000
	m := filteredNested(t, n, hostile.NestedFwdPtrLinks, nil)
	ctx := &skipCtx{Context: context.Background(), d: m.d, at: at}
	if _, err := m.DedupContext(ctx, builder.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled after %d skips: %v, want context.Canceled", at, err)
	}
	if m.d.skips < at || m.d.skips-at > stopEvery {
		t.Errorf("done after %d skips, stopped after %d: want at most %d more", at, m.d.skips, stopEvery)
	}
}

// skipCtx is a context that is done once the struct pass of d has
// skipped at candidates. Only the pass's goroutine reads it through Err.
type skipCtx struct {
	context.Context
	d  *state
	at uint64
}

func (c *skipCtx) Err() error {
	if c.d.skips >= c.at {
		return context.Canceled
	}
	return nil
}

// filteredNested returns a Merger holding Nested(n, v), whose struct pass
// filters every candidate from the start, calling hook with each
// refinement of exact depths.
func filteredNested(t *testing.T, n int, v hostile.NestedVariant, hook func(*exactRefiner)) *Merger {
	t.Helper()
	raw, err := hostile.Nested(n, v)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(nil, Options{})
	m.d.deepBudget, m.d.deepOn = 0, true
	m.d.exactHook = hook
	if err := m.AddSpec(spec); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExactNotBuiltWhereFullAgrees checks that exact depths are not built
// for pairs whose full signatures agree until such comparisons fail:
// issue 37's wide record of N identical deep anonymous chains
// (hostile.WideOfDeep), with every filter on from the start, compares
// only such pairs, and every comparison succeeds; building exact depths
// there took 17 MB of scratch at N = 16,383 to skip nothing. The output
// is the unfiltered one. (A chain whose full signatures collide, as
// TestPipelineChain's 100,000 structs, still gets them.)
func TestExactNotBuiltWhereFullAgrees(t *testing.T) {
	raw, err := hostile.BuildVariant(hostile.WideOfDeep, 64)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var outs [2][]byte
	refinements := 0
	for i, filtered := range []bool{true, false} {
		m := New(nil, Options{})
		if filtered {
			m.d.deepBudget, m.d.deepOn = 0, true
			m.d.exactHook = func(*exactRefiner) { refinements++ }
		}
		if err := m.AddSpec(spec); err != nil {
			t.Fatal(err)
		}
		if outs[i], err = m.Dedup(builder.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if refinements != 0 {
		t.Errorf("%d refinements of exact depths, want none", refinements)
	}
	if string(outs[0]) != string(outs[1]) {
		t.Error("the filters changed the output")
	}
}
