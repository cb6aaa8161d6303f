package dedup

import (
	"context"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestWideCancel checks that a pass over a few wide types looks at its
// context: a context done right after DedupContext's first look ends it
// at the first wide types of each pass, where looking once every
// stopEvery types never looked again (a hundred enums of 65,535 values
// ran for seconds past a cancel, issue 37). Counted, not timed: the passes
// must return the context's error, not an output.
func TestWideCancel(t *testing.T) {
	inputs := map[string]func() ([]byte, error){
		"enums (the enum pass)":          func() ([]byte, error) { return hostile.Build(hostile.Enums, 3) },
		"manywide (the struct pass)":     func() ([]byte, error) { return hostile.Build(hostile.ManyWide, 40) },
		"wide prototypes (the ref pass)": func() ([]byte, error) { return hostile.BuildMix(hostile.WideProtos, 3) },
	}
	for name, build := range inputs {
		t.Run(name, func(t *testing.T) {
			m := newMerger(t, build)
			ctx := &afterFirstLook{Context: context.Background()}
			if _, err := m.DedupContext(ctx, builder.Options{}); !errors.Is(err, context.Canceled) {
				t.Fatalf("DedupContext with a context done after its first look: %v, want context.Canceled", err)
			}
		})
	}
}

// afterFirstLook is a context that is done from the second call of Err.
// Only the deduplication's goroutine reads it.
type afterFirstLook struct {
	context.Context
	looks int
}

func (c *afterFirstLook) Err() error {
	if c.looks++; c.looks > 1 {
		return context.Canceled
	}
	return nil
}

// TestDoneBeforeDedup checks that DedupContext with a context done before
// it starts returns the context's error, however small the input.
func TestDoneBeforeDedup(t *testing.T) {
	raw, err := hostile.Build(hostile.TinyStructs, 10)
	if err != nil {
		t.Fatal(err)
	}
	m := New(nil, Options{})
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddSpec(s); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.DedupContext(ctx, builder.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("DedupContext with a done context: %v, want context.Canceled", err)
	}
}

// TestPrepareCancel checks that Prepare of an input of many megabytes of
// records stops on a done context instead of copying it whole.
func TestPrepareCancel(t *testing.T) {
	raw, err := hostile.Build(hostile.Enums, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := New(nil, Options{})
	if _, err := m.Prepare(ctx, s); !errors.Is(err, context.Canceled) {
		t.Fatalf("Prepare with a done context: %v, want context.Canceled", err)
	}
	// The Merger is still usable: a later Prepare appends the input.
	p, err := m.Prepare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddPrepared(p); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Dedup(builder.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestDeepLooks checks that one reference resolution that walks the
// whole input looks at the context as it goes, so that a cancel stops it
// within milliseconds: making a chain of 100,000 pointers canonical (one
// call of refType) looks at it at least once per stopEvery levels more
// than making 100,000 pointers to int canonical; the passes look as often
// for both, type by type. (The graph comparison looks at every step, as
// it did when it recursed: TestExactCancel.) Counted, not timed.
func TestDeepLooks(t *testing.T) {
	const n = 100_000
	var looks [2]int
	for i, shape := range []hostile.PointerShape{hostile.PointersToNext, hostile.PointersToInt} {
		m := newMerger(t, func() ([]byte, error) { return hostile.BuildPointers(n, shape) })
		ctx := &countLooks{Context: context.Background()}
		if _, err := m.DedupContext(ctx, builder.Options{}); err != nil {
			t.Fatal(err)
		}
		looks[i] = ctx.looks
	}
	if looks[0] < looks[1]+n/stopEvery/2 {
		t.Errorf("a chain of %d pointers: %d looks at the context, against %d for as many pointers to int", n, looks[0], looks[1])
	}
}

// countLooks is a context that counts the calls of Err.
type countLooks struct {
	context.Context
	looks int
}

func (c *countLooks) Err() error {
	c.looks++
	return nil
}

// newMerger returns a Merger of the BTF that build returns.
func newMerger(t *testing.T, build func() ([]byte, error)) *Merger {
	t.Helper()
	raw, err := build()
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(nil, Options{})
	if err := m.AddSpec(s); err != nil {
		t.Fatal(err)
	}
	return m
}
