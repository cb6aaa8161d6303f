package dedup

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestPipelineProgress checks that a pipeline over modules, each closed
// under references, runs its passes as they come: the test of its output
// (TestPipeline) would pass as well if it did nothing. af_key's types are
// all decided; kvm has a struct that could match two candidates (or
// resolve a base FWD), where the pipeline stops.
func TestPipelineProgress(t *testing.T) {
	vm, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := NewBase(vm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(base, Options{})
	if err := m.Pipeline(); err != nil {
		t.Fatal(err)
	}
	b, err := builder.NewSplit(vm)
	if err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	for _, name := range []string{"af_key", "kvm", "xfs"} {
		if err := b.CopyAll(testfixtures.Spec(t, mods[name], vm)); err != nil {
			t.Fatal(err)
		}
		if err := m.AddBuilder(b); err != nil {
			t.Fatal(err)
		}
		b.Forget()
		p := m.d.pipe
		n := m.d.n()
		if name != "af_key" {
			if !p.stopped && p.closed != n {
				t.Errorf("after %s: %d types, closed %d", name, n, p.closed)
			}
			continue
		}
		if p.closed != n || p.structDone != n || p.stopped {
			t.Errorf("after %s: %d types, closed %d, struct pass at %d, stopped %v", name, n, p.closed, p.structDone, p.stopped)
		}
	}
}
