package dwarf2btf_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestHugeBitfieldMessage: a member's DW_AT_bit_size of 2^63 keeps its low
// 8 bits, 0, as pahole keeps it; the error on the member at bit 3 that
// follows names the size the DWARF gives, not the cut one.
func TestHugeBitfieldMessage(t *testing.T) {
	data := hostile.BuildDWARF(hostile.HugeBitfield, 63)
	for _, like := range []dwarf2btf.Compat{dwarf2btf.CompatPahole124, dwarf2btf.CompatPahole130} {
		_, err := dwarf2btf.Encode(context.Background(), data, dwarf2btf.Options{Jobs: 1, Compat: like}, builder.Options{})
		const want = `member "m": bitfield size 9223372036854775808 at bit 3`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("like %v: error %v, want one with %q", like, err, want)
		}
	}
}

// TestManyUnitsJobs encodes more units than the workers keep in flight,
// and units whose types refer to the next unit's, with 1 to 8 workers:
// the same bytes for each.
func TestManyUnitsJobs(t *testing.T) {
	for _, k := range []hostile.DWARFShape{hostile.ManyCUs, hostile.RefAddrCycle} {
		data := hostile.BuildDWARF(k, 3_000)
		var want []byte
		for _, jobs := range []int{1, 2, 3, 8} {
			raw, err := dwarf2btf.Encode(context.Background(), data, dwarf2btf.Options{Jobs: jobs}, builder.Options{})
			if err != nil {
				t.Fatalf("%v, -j%d: %v", k, jobs, err)
			}
			if want == nil {
				want = raw
			} else if !bytes.Equal(raw, want) {
				t.Errorf("%v: -j%d writes %d bytes unlike -j1's %d", k, jobs, len(raw), len(want))
			}
		}
	}
}
