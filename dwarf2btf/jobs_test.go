package dwarf2btf_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestJobsOneInline checks the concurrency policy: Options.Jobs 1 reads,
// encodes and merges on the caller's goroutine alone, so while Encode
// runs (its Progress callback) there are no more goroutines than before.
// The input is the four units of multi-x86_64.o: with Jobs 1 sent
// through the worker pool, the test fails at -cpu 1, 2 and 4. With
// KMETA_HEAVY=1 (.ci/run) it is kvm.ko, whose dozens of units keep a
// worker waiting for its window at the first callback whatever the
// scheduling, but which takes seconds of CPU to inflate and encode.
func TestJobsOneInline(t *testing.T) {
	input := "dwarf/multi-x86_64.o.gz"
	if os.Getenv("KMETA_HEAVY") == "1" {
		input = "elf/kvm.ko.xz"
	}
	data := testfixtures.Read(t, input)
	before := runtime.NumGoroutine()
	during, calls := 0, 0
	opts := dwarf2btf.Options{Jobs: 1, NoDedup: true, Progress: func(done, total int) {
		calls++
		during = max(during, runtime.NumGoroutine())
	}}
	if _, err := dwarf2btf.Encode(context.Background(), data, opts, builder.Options{}); err != nil {
		t.Fatal(err)
	}
	if calls < 2 {
		t.Fatalf("Progress called %d times", calls)
	}
	if during > before {
		t.Errorf("-j1: %d goroutines while encoding, %d before", during, before)
	}
}

// TestJobsCanceled checks that a canceled context stops every -j.
func TestJobsCanceled(t *testing.T) {
	data := testfixtures.Read(t, "dwarf/kinds-x86_64.o.gz")
	for _, jobs := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := dwarf2btf.Encode(ctx, data, dwarf2btf.Options{Jobs: jobs, Compat: dwarf2btf.CompatPahole124}, builder.Options{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("-j%d: %v, want context.Canceled", jobs, err)
		}
	}
}
