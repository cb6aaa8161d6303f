package layout_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestLazyBrokenRecord (issue 37, redteam7c): a lazy Spec whose struct
// refers to a type past the last one stops its iteration before that
// struct; the layouts must fail with the record's error, as an eager open
// does, not print nothing and succeed.
func TestLazyBrokenRecord(t *testing.T) {
	raw, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	_, eagerErr := btf.Parse(raw, btf.Options{})
	if eagerErr == nil {
		t.Fatal("Parse accepts the dangling reference")
	}
	ctx := context.Background()
	for name, run := range map[string]func(s *btf.Spec) error{
		"Write":     func(s *btf.Spec) error { return layout.Write(ctx, &bytes.Buffer{}, s, layout.Options{}) },
		"WriteJSON": func(s *btf.Spec) error { return layout.WriteJSON(ctx, &bytes.Buffer{}, s, layout.Options{}) },
		"Layouts": func(s *btf.Spec) error {
			_, err := layout.Layouts(ctx, s, layout.Options{})
			return err
		},
	} {
		s, err := btf.Parse(raw, btf.Options{Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		err = run(s)
		var fe *btf.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want the record's FormatError (%v)", name, err, eagerErr)
		}
	}
}
