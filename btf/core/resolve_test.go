package core_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestLibbpfGenerated: the generated objects' relocations, about 2,000
// on each kernel, resolve as Debian's libbpf 1.1 resolved them (its debug
// log, from testdata/core/coreref.c). Two handwritten objects fail as
// libbpf does: arrshift's second relocation when its value is calculated,
// naming the candidate libbpf matched first, and patchfail's when its
// instruction is patched.
func TestLibbpfGenerated(t *testing.T) {
	failing := []string{"arrshift", "patchfail"}
	for _, o := range slices.Concat(generated, failing) {
		for k := range kernels {
			t.Run(o+"/"+k, func(t *testing.T) {
				logged, all := compareLibbpf(t, o, k, "core/gen/libbpf/"+o+"."+k+".txt.gz")
				if logged != all && !slices.Contains(failing, o) { // libbpf stops at a failure
					t.Fatalf("libbpf logged %d relocations of %d", logged, all)
				}
			})
		}
	}
}

// TestLibbpf: every relocation of every committed object, against both
// committed kernels, resolves as libbpf 1.8 resolved it (its own debug
// log: local spec, first matching candidate, patched value or poisoning).
func TestLibbpf(t *testing.T) {
	for _, o := range append(objectOrder, "ambig") {
		for k := range kernels {
			t.Run(o+"/"+k, func(t *testing.T) { compareLibbpf(t, o, k, "core/libbpf/"+o+"."+k+".txt") })
		}
	}
}

// compareLibbpf resolves object o on kernel k and compares the results
// with libbpf's log in testdata file golden; it returns how many
// relocations the log has, and how many the object has.
func compareLibbpf(t *testing.T, o, k, golden string) (logged, all int) {
	t.Helper()
	want := parseGolden(t, testfixtures.Read(t, golden))
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
	return len(want), len(rs)
}
