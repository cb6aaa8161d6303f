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

// TestExactCancel checks that a context canceled as exact depths start
// to filter (records linked by pointers, whose candidates are then
// skipped without a comparison step) ends the deduplication with the
// context's error. How soon is not timed here: the struct pass looks at
// the context once per type and once per 1,024 skipped candidates.
func TestExactCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := filteredNested(t, 3000, hostile.NestedFwdPtrLinks, func(*exactRefiner) { cancel() })
	if _, err := m.DedupContext(ctx, builder.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled as exact depths start: %v, want context.Canceled", err)
	}
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
