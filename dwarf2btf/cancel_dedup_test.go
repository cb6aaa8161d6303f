package dwarf2btf_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestCancelBeforeDedup checks that a context done once the units are
// encoded stops the deduplication that follows: Encode returns the
// context's error, not an output (the last step ignored the context,
// issue 37).
func TestCancelBeforeDedup(t *testing.T) {
	obj := testfixtures.Read(t, "dwarf/multi-x86_64.o.gz")
	for _, jobs := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		opts := dwarf2btf.Options{Jobs: jobs, Encoded: cancel}
		if _, err := dwarf2btf.Encode(ctx, obj, opts, builder.Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("jobs %d: Encode canceled after the encoding: %v, want context.Canceled", jobs, err)
		}
		cancel()
	}
}
