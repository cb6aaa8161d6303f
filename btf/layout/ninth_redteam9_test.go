package layout_test

import (
	"os/exec"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// variantSizes are the ninth campaign's variants (issue 37, redteam9)
// that TestVariantsMatchPahole compares with pahole, at small sizes;
// deeper nesting and longer chains are TestDeepMatchesPahole's. The
// variants that embed themselves are refused.
var variantSizes = map[hostile.Variant]int{
	hostile.WideOfDeep: 20, hostile.DeepOfWide: 20, hostile.UnionNest: 20, hostile.QualMix: 70,
	hostile.ReturnChain: 20, hostile.ArrayTypedefs: 20, hostile.TaggedWide: 20, hostile.Bitfields: 100,
	hostile.HugeSizes: 3, hostile.Enum64Edges: 8, hostile.MixedRing: 60,
}

// TestVariantsMatchPahole compares the layouts of the ninth campaign's
// variants with pahole 1.24's, where pahole is installed. HugeSizes holds
// structs of 2^32-1 bytes and arrays of 2^32-1 of them: pahole prints the
// size as a signed int (-1) and a member's size in 32 bits, where the
// printer printed 4294967295 and the 64-bit products.
func TestVariantsMatchPahole(t *testing.T) {
	if _, err := exec.LookPath("pahole"); err != nil {
		t.Skip("pahole not installed")
	}
	for v, n := range variantSizes {
		t.Run(v.String(), func(t *testing.T) {
			raw, err := hostile.BuildVariant(v, n)
			if err != nil {
				t.Fatal(err)
			}
			s, err := btf.Parse(raw, btf.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			matchPahole(t, raw, s)
		})
	}
}
