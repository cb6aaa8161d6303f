package lazyfuzz_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// twelfthSizes are the sizes TestTwelfthConsumers builds each variant of
// the twelfth campaign at (issue 37, redteam12): one past cdump's 2,048
// levels where the variant nests; the wide ones (3 s for one use of a
// struct of 65,535 members at load) only with KMETA_HEAVY=1, which takes
// the campaign's largest sizes.
var twelfthSizes = map[hostile.Variant12][2]int{
	hostile.WideDeepProto: {2049, 100_000}, hostile.ParamPtrChain: {2049, 300_000},
	hostile.SharedAnonWide: {0, 16}, hostile.SharedWideProto: {0, 64}, hostile.KindSoup: {60, 300_000},
}

// TestTwelfthConsumers opens each variant of the twelfth campaign
// eagerly and lazily, split on a base too, and runs every consumer on
// both (consume): no panic, the lazy Spec given the same results as the
// eager one. About 1 s without KMETA_HEAVY=1.
func TestTwelfthConsumers(t *testing.T) {
	heavy := 0
	if os.Getenv("KMETA_HEAVY") == "1" {
		heavy = 1
	}
	obj, base, baseSpec := consumerSetup(t, "core/shapes12.bpf.o.gz")
	for _, v := range hostile.Variant12s() {
		n := twelfthSizes[v][heavy]
		if n == 0 {
			continue
		}
		raw, err := hostile.BuildVariant12(v, n)
		if err != nil {
			t.Fatal(err)
		}
		split, err := hostile.BuildVariant12On(base, v, n)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%v-%d", v, n)
		start := time.Now()
		lazyAndEager(t, name, raw, nil, obj, nil)
		lazyAndEager(t, "split-"+name, split, baseSpec, obj, nil)
		t.Logf("%s: %v", name, time.Since(start))
	}
}
