package core_test

import (
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzResolve feeds mutated BPF objects to ParseObject, and what parses
// to Resolve and Minimal against the Debian 6.1 kernel: no panic, no hang,
// and a minimal BTF that marshals. Seeds: the committed objects.
func FuzzResolve(f *testing.F) {
	for _, o := range []string{"matches", "types", "fields"} {
		f.Add(testfixtures.Read(f, objects[o]))
	}
	target := core.NewTarget(kernel(f, "debian-6.1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := core.ParseObject(data)
		if err != nil {
			return
		}
		rs, err := core.Resolve(context.Background(), obj, target)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rs {
			_ = rs[i].Reason()
		}
		b, err := core.Minimal(context.Background(), target, []*core.Object{obj})
		if err != nil {
			return
		}
		if _, err := b.Marshal(builder.Options{}); err != nil {
			t.Fatalf("minimal BTF does not marshal: %v", err)
		}
	})
}
