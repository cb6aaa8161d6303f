package dwarf2btf_test

import (
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestMemberChainMutants encodes the two mutants of a DWARF member ring
// (1,523 structs "s", each holding the next) that the CLI campaign found
// (issue 37): one or two bytes bend a member's DW_AT_type out of the ring,
// which leaves a chain of structs of one name, each shallow-equal to every
// other and none equivalent. The deduplication's pipeline compared each
// with all before it, 39 s (pahole 1.24: 13 s); the output must be
// pahole 1.24's, byte for byte.
func TestMemberChainMutants(t *testing.T) {
	for i := 1; i <= 2; i++ {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			obj := testfixtures.Read(t, fmt.Sprintf("dwarf/member-chain-%d.o.gz", i))
			want := testfixtures.Read(t, fmt.Sprintf("pahole/dwarf/member-chain-%d.btf.gz", i))
			samePahole(t, obj, dwarf2btf.Options{Compat: dwarf2btf.CompatPahole124}, want)
		})
	}
}
