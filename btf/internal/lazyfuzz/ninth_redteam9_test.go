package lazyfuzz_test

import (
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// ninthSizes are the sizes TestNinthConsumers builds each variant of the
// ninth campaign at (issue 37, redteam9): past 2,048 levels where the
// variant nests, small where it is wide, so that the test takes seconds.
var ninthSizes = map[hostile.Variant]int{
	hostile.WideOfDeep: 300, hostile.DeepOfWide: 2049, hostile.UnionNest: 2049,
	hostile.SelfTypedefArr: 65536, hostile.SelfAnonUnions: 2049, hostile.QualMix: 2049,
	hostile.ReturnChain: 2049, hostile.ArrayTypedefs: 2049, hostile.TaggedWide: 300,
	hostile.Bitfields: 3000, hostile.HugeSizes: 30, hostile.CopiesDeep: 50,
	hostile.CopiesSelf: 300, hostile.Enum64Edges: 64, hostile.MixedRing: 120,
}

// TestNinthConsumers opens each variant of the ninth campaign eagerly
// and lazily, split on a base too, and runs every consumer on both
// (FuzzConsumers' consume: dedup, cdump, layout and its JSON, diff, the
// builder's copies, Minimal, CO-RE, sizes): no panic, and the lazy Spec
// given the same results as the eager one.
func TestNinthConsumers(t *testing.T) {
	t.Parallel()
	obj, base, baseSpec := consumerSetup(t, "core/matches.bpf.o.gz")
	for _, v := range hostile.Variants() {
		raw, err := hostile.BuildVariant(v, ninthSizes[v])
		if err != nil {
			t.Fatal(err)
		}
		split, err := hostile.BuildVariantOn(base, v, ninthSizes[v], "outer")
		if err != nil {
			t.Fatal(err)
		}
		lazyAndEager(t, v.String(), raw, nil, obj, nil)
		lazyAndEager(t, "split-"+v.String(), split, baseSpec, obj, nil)
	}
}

// consumerSetup returns the CO-RE object of testdata's path the
// consumers take, and a small base (a union nest of 3) raw and opened,
// which the test closes.
func consumerSetup(t *testing.T, path string) (*bpfelf.Object, []byte, *btf.Spec) {
	t.Helper()
	obj, err := bpfelf.Parse(testfixtures.Read(t, path))
	if err != nil {
		t.Fatal(err)
	}
	base, err := hostile.BuildVariant(hostile.UnionNest, 3)
	if err != nil {
		t.Fatal(err)
	}
	baseSpec, err := btf.Parse(base, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { baseSpec.Close() })
	return obj, base, baseSpec
}

// lazyAndEager opens raw (split on base, when not nil) eagerly and
// lazily and runs every consumer on both (consume), the lazy Spec to
// give the same results as the eager one. It
// calls each, when not nil, with each Spec before closing it.
func lazyAndEager(t *testing.T, name string, raw []byte, base *btf.Spec, obj *bpfelf.Object, each func(s *btf.Spec, lazy bool)) {
	t.Helper()
	var got [2][]string
	for i, lazy := range []bool{false, true} {
		s, err := btf.Parse(raw, btf.Options{Lazy: lazy, Base: base})
		if err != nil {
			t.Fatalf("%s: lazy %v: %v", name, lazy, err)
		}
		start := time.Now()
		got[i] = consume(s, obj)
		// No bound on the time: on a loaded machine a minute passed on
		// shapes that take seconds alone. A hang is go test's timeout;
		// superlinear time is the campaigns' (their CPU against the
		// peers'). The log says where the time went.
		if d := time.Since(start); d > 10*time.Second {
			t.Logf("%s: lazy %v: the consumers took %v", name, lazy, d)
		}
		if each != nil {
			each(s, lazy)
		}
		s.Close()
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("%s: lazy and eager differ:\nlazy:  %.300s\neager: %.300s", name, got[1][i], got[0][i])
		}
	}
}
