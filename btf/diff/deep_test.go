package diff_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestDeepAnonymousMembers: anonymous members nested past the 32 levels
// diff once refused are compared (redteam10 item 7), also those whose
// paths would outgrow the memory rule if held, and a struct nested past
// 4,096 levels is refused in one error naming it.
func TestDeepAnonymousMembers(t *testing.T) {
	spec := func(n int) *btf.Spec { return deepOfWide(t, n) }
	ctx := context.Background()
	changes, err := diff.Compare(ctx, spec(40), spec(41), diff.Options{})
	if err != nil {
		t.Fatalf("40 against 41 levels: %v", err)
	}
	if len(changes) != 1 || changes[0].Name != "outer" || len(changes[0].Details) == 0 {
		t.Errorf("40 against 41 levels: %+v, want one change of outer, with details", changes)
	}
	// 1,000 levels of 33 members: 50 MB of paths for 0.4 MB of BTF,
	// compared as they are spelled.
	changes, err = diff.Compare(ctx, spec(40), spec(1000), diff.Options{})
	if err != nil || len(changes) != 1 || len(changes[0].Details) < 33*1000 {
		t.Errorf("40 against 1,000 levels: %v, %d changes, want one of outer with its details", err, len(changes))
	}
	_, err = diff.Compare(ctx, spec(40), spec(4100), diff.Options{})
	if err == nil || !strings.Contains(err.Error(), "'outer'") || strings.Contains(err.Error(), "\n") {
		t.Errorf("40 against 4,100 levels: %v, want one line refusing outer", err)
	}
}

// deepOfWide returns hostile.DeepOfWide of n levels.
func deepOfWide(t *testing.T, n int) *btf.Spec {
	t.Helper()
	raw, err := hostile.BuildVariant(hostile.DeepOfWide, n)
	return parseRaw(t, raw, err)
}
