package dedup_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestGoldenSelfAppended checks against libbpf 1.8: a module appended to
// itself on the base, then deduplicated (testdata/NAME-x2.dedup.btf.gz).
func TestGoldenSelfAppended(t *testing.T) {
	for _, name := range []string{"af_key", "kvm", "xfs"} {
		t.Run(name, func(t *testing.T) {
			vm, base := debian(t)
			mod := module(t, name)
			raw, err := dedup.Specs(base, mod, mod)
			if err != nil {
				t.Fatal(err)
			}
			equalBTF(t, raw, golden(t, name+"-x2"), vm)
		})
	}
}

// TestGoldenModulesMerged checks against libbpf 1.8: all 1,121 modules
// appended on the base in the golden's order, deduplicated once, on the
// caller's goroutine. The plain go test compares the same golden with
// workers (TestWorkersGolden); this runs with KMETA_HEAVY=1 (.ci/run).
func TestGoldenModulesMerged(t *testing.T) {
	testfixtures.SkipUnlessHeavy(t, "the 1,121 modules deduplicated a second time")
	vm, base := debian(t)
	var specs []*btf.Spec
	for _, name := range mergedOrder(t) {
		specs = append(specs, module(t, name))
	}
	raw, err := dedup.Specs(base, specs...)
	if err != nil {
		t.Fatal(err)
	}
	equalBTF(t, raw, golden(t, "modules-merged"), vm)
}
