package lazyfuzz_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// tenthSizes are the sizes TestTenthConsumers builds each variant of the
// tenth campaign at (issue 37, redteam10): past the limits the consumers
// have (46 near misses fail past the deduplication's 2^16 steps, 2,049
// named levels past cdump's 2,048), small where the variant is wide.
var tenthSizes = map[hostile.Variant10]int{
	hostile.NearMisses: 46, hostile.NamedDeep: 2049, hostile.ListChain: 3000,
	hostile.FwdStorm: 2000, hostile.EnumFwds: 2000, hostile.DeepVars: 500,
}

// TestTenthConsumers opens each variant of the tenth campaign eagerly
// and lazily, split on a base too, and runs every consumer on both
// (consume): no panic, each within a minute, the lazy Spec given the
// same results as the eager one. Each consumer that takes a context is
// also cancelled half-way on both (probeAll): it returns the context's
// error, or its full run's, leaving no goroutine behind
// (KMETA_RT7_TABLE=1 logs the table of latencies).
func TestTenthConsumers(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	obj, base, baseSpec := consumerSetup(t, "core/matches.bpf.o.gz")
	var table strings.Builder
	for _, v := range hostile.Variant10s() {
		n := tenthSizes[v]
		raw, err := hostile.BuildVariant10(v, n)
		if err != nil {
			t.Fatal(err)
		}
		split, err := hostile.BuildVariant10On(base, v, n)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%v-%d", v, n)
		lazyAndEager(t, name, raw, nil, obj, func(s *btf.Spec, lazy bool) {
			mode := map[bool]string{false: "eager", true: "lazy"}[lazy]
			for _, api := range specAPIs() {
				probeAll(t, &table, api, &ctxInput{name: name, raw: raw, spec: s, obj: obj}, mode)
			}
		})
		lazyAndEager(t, "split-"+name, split, baseSpec, obj, nil)
	}
	if os.Getenv("KMETA_RT7_TABLE") != "1" {
		return
	}
	t.Logf("\n| API | input | mode | full run | cancel at | latency | peak +MB | result |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n%s", table.String())
}
