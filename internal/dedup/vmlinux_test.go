package dedup_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// The goldens of the two standalone cases are 3.9 MB of BTF; their raw
// dumps are kept as SHA-256 sums (of bpftool's dump of libbpf's output, see
// testdata/README.md) and compared with the sum of kmeta's dump, which is
// byte-identical to bpftool's (btf/rawdump).
const (
	sumVmlinuxHost = "fbbdb1e999dbe57b9f36c1641d83807ad775f8e1aac708766fa2c2d9b1ea1301"
	sumVmlinuxX2   = "644c623acd29ef7cc430f848945d9ea596d3645146e888d43c49acf627677b74"
)

func TestGoldenVmlinux(t *testing.T) {
	heavy(t)
	vm, _ := debian(t)
	host := testfixtures.HostSpec(t)
	for _, c := range []struct {
		name  string
		specs []*btf.Spec
		sum   string
		types int
	}{
		{"vmlinux+host", []*btf.Spec{vm, host}, sumVmlinuxHost, 201150},
		{"vmlinux-x2", []*btf.Spec{vm, vm}, sumVmlinuxX2, 95331},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw, err := dedup.Specs(nil, c.specs...)
			if err != nil {
				t.Fatal(err)
			}
			s := parse(t, raw, nil)
			if s.NumTypes() != c.types {
				t.Errorf("%d types, libbpf has %d", s.NumTypes(), c.types)
			}
			sum := sha256.Sum256(dumpOwn(t, s))
			if got := hex.EncodeToString(sum[:]); got != c.sum {
				t.Errorf("raw dump sha256 %s, libbpf's %s", got, c.sum)
			}
		})
	}
}
