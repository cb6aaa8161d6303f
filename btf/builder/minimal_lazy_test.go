package builder_test

import (
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestMinimalLazyBroken checks that Minimal of a type whose lazy record
// fails its check returns that failure, not ErrNotFound (red team 7c).
func TestMinimalLazyBroken(t *testing.T) {
	raw, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = builder.Minimal(s, []builder.Want{{Name: "s"}}, builder.MinimalOptions{})
	var fe *btf.FormatError
	if err == nil || errors.Is(err, btf.ErrNotFound) || !errors.As(err, &fe) {
		t.Errorf("Minimal of a broken record: %v, want its check's FormatError", err)
	}
}
