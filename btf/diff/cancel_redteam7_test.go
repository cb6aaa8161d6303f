package diff_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// countingCtx counts the checks of its Err.
type countingCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countingCtx) Err() error {
	c.n.Add(1)
	return c.Context.Err()
}

// TestPollsWideTypes (issue 37, redteam7c): Compare checks its context in
// proportion to the work, not to the number of types: a few types of
// 65,535 enumerators or parameters each took a second on both sides with
// not one check between them, so a cancel went unnoticed until the end.
// Each such type is now worth at least one check.
func TestPollsWideTypes(t *testing.T) {
	const n = 8
	enums, err := hostile.Build(hostile.Enums, n)
	if err != nil {
		t.Fatal(err)
	}
	protos, err := hostile.BuildMix(hostile.WideProtos, n)
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string][]byte{"enums": enums, "wide protos": protos} {
		for _, lazy := range []bool{false, true} {
			s, err := btf.Parse(raw, btf.Options{Lazy: lazy})
			if err != nil {
				t.Fatal(err)
			}
			ctx := &countingCtx{Context: context.Background()}
			if _, err := diff.Compare(ctx, s, s, diff.Options{}); err != nil {
				t.Fatal(err)
			}
			if got := ctx.n.Load(); got < n {
				t.Errorf("%s, lazy %v: %d checks of the context for %d types of 65,535 values, want at least %d",
					name, lazy, got, n, n)
			}
		}
	}
}
