package core_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestLibbpf: every relocation of every committed object, against both
// committed kernels, resolves as libbpf 1.8 resolved it (its own debug
// log: local spec, first matching candidate, patched value or poisoning).
func TestLibbpf(t *testing.T) {
	for _, o := range append(objectOrder, "ambig") {
		for k := range kernels {
			t.Run(o+"/"+k, func(t *testing.T) {
				want := parseGolden(t, testfixtures.Read(t, "core/libbpf/"+o+"."+k+".txt"))
				rs, err := core.Resolve(context.Background(), object(t, o), core.NewTarget(kernel(t, k)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := fromResults(rs)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) == 0 {
					t.Fatal("empty golden")
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-libbpf +kmeta):\n%s", diff)
				}
			})
		}
	}
}
