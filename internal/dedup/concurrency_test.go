package dedup_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestConcurrentBase deduplicates modules against one Base from many
// goroutines at once (run it with -race): every result equals the one
// computed alone, whatever the interleaving of the Base's scratch pool.
func TestConcurrentBase(t *testing.T) {
	_, base := debian(t)
	names := []string{"af_key", "vsock_loopback", "kvm", "xfs", "btrfs", "mlx5_core"}
	want := make([][]byte, len(names))
	specs := make([]*btf.Spec, len(names))
	for i, n := range names {
		specs[i] = module(t, n)
		raw, err := dedup.Specs(base, specs[i])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = raw
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for r := range 3 {
				i := (g + r) % len(names)
				raw, err := dedup.Specs(base, specs[i])
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(raw, want[i]) {
					t.Errorf("%s: concurrent result differs", names[i])
				}
			}
		})
	}
	wg.Wait()
}

// TestWorkersGolden merges all 1,121 modules with workers (run it with
// -race): a Base and a Merger given 4 workers compute their signatures on
// four goroutines, and the result is still libbpf 1.8's.
func TestWorkersGolden(t *testing.T) {
	vm, _ := debian(t)
	base, err := dedup.NewBase(vm, dedup.Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	m := dedup.New(base, dedup.Options{Workers: 4})
	for _, name := range mergedOrder(t) {
		if err := m.AddSpec(module(t, name)); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalBTF(t, raw, golden(t, "modules-merged"), vm)
}
