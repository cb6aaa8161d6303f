package dedup_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/dedup"
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
