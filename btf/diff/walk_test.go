package diff_test

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestWalkComparesAgain: the changes are the same whether the first pass
// kept every changed group's details or none (the walk compares those
// groups again), on one goroutine or several, and Stream writes them as
// WriteText and WriteJSON write the slice.
func TestWalkComparesAgain(t *testing.T) {
	var oldSpec, newSpec *btf.Spec
	if raceEnabled && !testfixtures.Heavy() {
		// The kernels take 20 s under the race detector: 16,384
		// structs make four workers share the sides as they do.
		oldSpec, newSpec = manyStructs(t, 16384, 0), manyStructs(t, 16384, 1)
	} else {
		oldSpec, newSpec = testfixtures.DebianSpec(t), testfixtures.HostSpec(t)
	}
	ctx := context.Background()
	opts := []diff.Options{{Workers: 4}, {Types: []string{"sk_buff", "task_struct"}}}
	if raceEnabled && !testfixtures.Heavy() {
		opts[1].Types = []string{"s1", "s3"}
	}
	for i, opts := range opts {
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
			if !bytes.Equal(streamed(t, oldSpec, newSpec, opts, want, json), written(t, want, json)) {
				t.Errorf("%+v, json %v: Stream differs from writing the slice", opts, json)
			}
		}
	}
}

// written returns changes as WriteText, or WriteJSON with their summary,
// writes them.
func written(t *testing.T, changes []diff.Change, json bool) []byte {
	t.Helper()
	var whole bytes.Buffer
	var err error
	if json {
		err = diff.WriteJSON(&whole, diff.Report{Changes: changes, Summary: diff.Summarize(changes)})
	} else {
		err = diff.WriteText(&whole, changes)
	}
	if err != nil {
		t.Fatal(err)
	}
	return whole.Bytes()
}

// streamed returns what a Stream writes of Walk's changes from old to
// new, closed with the summary of want.
func streamed(t *testing.T, old, new *btf.Spec, opts diff.Options, want []diff.Change, json bool) []byte {
	t.Helper()
	var out bytes.Buffer
	s := diff.NewStream(&out, json)
	err := diff.Walk(context.Background(), old, new, opts, func(c diff.Change) error { return s.Add(c) })
	if err == nil {
		err = s.Close(diff.Summarize(want), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// manyStructs returns a BTF of n structs "s0"... of two members, and of
// as many typedefs of them; those of version 1 differ from version 0's
// in one member of every third struct, and one struct in 64 is in one
// version only.
func manyStructs(t *testing.T, n, version int) *btf.Spec {
	t.Helper()
	b, intID, longID := intsBuilder(t)
	for i := range n {
		if i%64 == 63 && i/64%2 != version {
			continue
		}
		typ := intID
		if version == 1 && i%3 == 0 {
			typ = longID
		}
		id, err := b.AddStruct("s"+strconv.Itoa(i), 16, []builder.Member{{Name: "a", Type: intID}, {Name: "b", Type: typ, BitOffset: 64}})
		if err == nil {
			_, err = b.AddTypedef("t"+strconv.Itoa(i), id)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return parseBuilt(t, b)
}
