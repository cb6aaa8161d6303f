package core_test

import (
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzResolve feeds mutated BPF objects to bpfelf.Parse, and what parses
// to Resolve and TypesFor: no panic, no hang, and a minimal BTF that
// marshals. Seeds: committed objects, handwritten and generated, and two
// that libbpf refuses. The target is the minimal BTF that bpftool made of
// Debian 6.1's for the generated objects (the 69 KB of types their
// relocations reach, candidates included): under the fuzzer's coverage
// instrumentation, searching the whole vmlinux BTF for each mutant's names
// took the run from 7,000 inputs a second to 10.
func FuzzResolve(f *testing.F) {
	for _, o := range []string{"matches", "types", "fields", "flav2", "arrshift", "patchfail"} {
		f.Add(testfixtures.Read(f, objects[o]))
	}
	small, err := btf.Parse(testfixtures.Read(f, "core/gen/bpftool/all.debian-6.1.min.btf.gz"), btf.Options{})
	if err != nil {
		f.Fatal(err)
	}
	target := core.NewTarget(small)
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := bpfelf.Parse(data)
		if err != nil {
			return
		}
		rs, err := core.Resolve(context.Background(), obj.CORE(), target)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rs {
			_ = rs[i].Reason()
		}
		b, err := core.TypesFor(context.Background(), target, []core.Object{obj.CORE()})
		fuzztest.CheckError(t, "core", err)
		if err != nil {
			return
		}
		if _, err := b.Marshal(builder.Options{}); err != nil {
			t.Fatalf("minimal BTF does not marshal: %v", err)
		}
	})
}
