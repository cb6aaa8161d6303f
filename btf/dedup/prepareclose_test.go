package dedup_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestPrepareCloseDropsSpec checks that nothing a Merger keeps holds a
// Spec given to PrepareClose: once prepared and added, the Spec (and its
// index, 0.7 MB for a module that repeats its vmlinux) is collected
// while the Merger goes on (session 30's note; btf/BENCH.md, "Close
// beside its users"). A few GCs: tens of ms.
func TestPrepareCloseDropsSpec(t *testing.T) {
	vm, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "xfs.btf")
	if err := os.WriteFile(path, testfixtures.Modules(t)["xfs"], 0o600); err != nil {
		t.Fatal(err)
	}
	base, err := dedup.NewBase(vm, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := dedup.New(base, dedup.Options{})
	collected := make(chan struct{})
	func() {
		s, err := btf.Open(context.Background(), path, btf.Options{Base: vm})
		if err != nil {
			t.Fatal(err)
		}
		runtime.AddCleanup(s, func(c chan struct{}) { close(c) }, collected)
		p, err := m.PrepareClose(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.AddPrepared(p); err != nil {
			t.Fatal(err)
		}
	}()
	dropped := false
	for range 20 {
		runtime.GC()
		select {
		case <-collected:
			dropped = true
		default:
			runtime.Gosched()
			continue
		}
		break
	}
	if !dropped {
		t.Error("a Spec given to PrepareClose is still reachable after 20 GCs")
	}
	if _, err := m.Dedup(builder.Options{}); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(vm)
}
