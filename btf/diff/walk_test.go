package diff_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestWalkComparesAgain: the changes are the same whether the first pass
// kept every changed group's details or none (the walk compares those
// groups again), on one goroutine or several, and Stream writes them as
// WriteText and WriteJSON write the slice.
func TestWalkComparesAgain(t *testing.T) {
	oldSpec, newSpec := testfixtures.DebianSpec(t), testfixtures.HostSpec(t)
	ctx := context.Background()
	for i, opts := range []diff.Options{{Workers: 4}, {Types: []string{"sk_buff", "task_struct"}}} {
		want, err := diff.Compare(ctx, oldSpec, newSpec, opts)
		if err != nil {
			t.Fatal(err)
		}
		restore := diff.SetKeptBytes(0)
		got, err := diff.Compare(ctx, oldSpec, newSpec, opts)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(diff.Change{})); d != "" {
			t.Fatalf("%+v: with no details kept (-kept +compared again):\n%s", opts, d)
		}
		for _, json := range []bool{false, true} {
			if i > 0 {
				break // the streams' bytes need one run
			}
			var streamed, whole bytes.Buffer
			s := diff.NewStream(&streamed, json)
			err := diff.Walk(ctx, oldSpec, newSpec, opts, func(c diff.Change) error { return s.Add(c) })
			if err != nil {
				t.Fatal(err)
			}
			sum := diff.Summarize(want)
			if err := s.Close(sum, nil); err != nil {
				t.Fatal(err)
			}
			if json {
				err = diff.WriteJSON(&whole, diff.Report{Changes: want, Summary: sum})
			} else {
				err = diff.WriteText(&whole, want)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
				t.Errorf("%+v, json %v: Stream differs from writing the slice", opts, json)
			}
		}
	}
}
