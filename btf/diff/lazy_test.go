package diff_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestCompareLazyWideSelf: a lazy Spec whose struct has 65,535 members of
// its own type must compare as fast as the eager one, checking the record
// once rather than once per member's view, and give the eager result; the
// deadline, far above what it takes, only catches a hang.
func TestCompareLazyWideSelf(t *testing.T) {
	raw, err := hostile.WideSelf("wide", 65535)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, lazy := range []bool{false, true} {
		s, err := btf.Parse(raw, btf.Options{Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		changes, err := diff.Compare(ctx, s, s, diff.Options{})
		if ctx.Err() != nil {
			t.Fatalf("lazy %v: still running at the deadline: %v", lazy, err)
		}
		cancel()
		got = append(got, fmt.Sprint(changes, err))
	}
	if got[0] != got[1] {
		t.Errorf("eager %s, lazy %s", got[0], got[1])
	}
}
