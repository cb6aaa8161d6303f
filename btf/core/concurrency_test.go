package core_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
)

// TestConcurrentTarget: goroutines resolving every object against one
// shared Target, whose candidate cache they fill at the same time, and
// building minimal BTF from shared Objects, get what a lone goroutine
// gets. Run under -race by .ci/run.
func TestConcurrentTarget(t *testing.T) {
	k := kernel(t, "debian-6.1")
	objs := map[string]core.Object{}
	want := map[string]string{}
	for _, o := range objectOrder {
		objs[o] = object(t, o)
		rs, err := core.Resolve(context.Background(), objs[o], core.NewTarget(k))
		if err != nil {
			t.Fatal(err)
		}
		want[o] = fmt.Sprint(rs)
	}
	wantMin := minimal(t, "debian-6.1", objectOrder...)
	shared := core.NewTarget(k)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range objectOrder {
				o := objectOrder[(i+g)%len(objectOrder)]
				rs, err := core.Resolve(context.Background(), objs[o], shared)
				if err != nil {
					errs <- err.Error()
					return
				}
				if diff := cmp.Diff(want[o], fmt.Sprint(rs)); diff != "" {
					errs <- o + ": " + diff
				}
			}
			var list []core.Object
			for _, o := range objectOrder {
				list = append(list, objs[o])
			}
			b, err := core.TypesFor(context.Background(), shared, list)
			if err != nil {
				errs <- err.Error()
				return
			}
			raw, err := b.Marshal(builder.Options{})
			if err != nil || !bytes.Equal(raw, wantMin) {
				errs <- fmt.Sprintf("minimal BTF differs (%v)", err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
