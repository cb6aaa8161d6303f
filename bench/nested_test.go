package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// BenchmarkDedupNested (issue 37): N anonymous records, each the only
// member of the next (hostile.Nested, every variant), deduplicated by kmeta's CLI
// and by libbpf (libbpfdedup, built against the system's libbpf unless
// KMETA_LIBBPFDEDUP names one), as processes, alternating round by round
// with -count. libbpf's comparisons are cubic in N here (about 1 s at
// N=1,000 and 36 s at 3,000 for libbpf 1.8 on an idle machine); run with
// -benchtime 1x. The outputs are checked to be equal first.
//
//	go test -run '^$' -bench DedupNested -benchtime 1x -count 3 .
func BenchmarkDedupNested(b *testing.B) {
	libbpf, kmeta := dedupTools(b)
	dir := b.TempDir()
	variants := []struct {
		name string
		v    hostile.NestedVariant
	}{{"plain", hostile.NestedPlain}, {"twice", hostile.NestedTwice}, {"fwd", hostile.NestedFwd},
		{"cycle", hostile.NestedCycle}, {"fwdptr", hostile.NestedFwdPtr}, {"fwdmember", hostile.NestedFwdMember},
		{"fwdbottom", hostile.NestedFwdBottom}, {"fwdbottomptr", hostile.NestedFwdBottomPtr},
		{"fwdptrevery", hostile.NestedFwdPtrEvery}, {"fwdtypedef", hostile.NestedFwdTypedef},
		{"fwddepths", hostile.NestedFwdDepths}, {"fwdptrlinks", hostile.NestedFwdPtrLinks},
		{"ptrlinksalt", hostile.NestedPtrLinksAlternate}, {"ptrlinkstypedef", hostile.NestedPtrLinksTypedef},
		{"ptrlinksmiddle", hostile.NestedPtrLinksMiddle}, {"ptrlinkstwice", hostile.NestedPtrLinksTwice}}
	for _, n := range []int{1000, 3000} {
		for _, v := range variants {
			b.Run(fmt.Sprintf("%s/N=%d", v.name, n), func(b *testing.B) { nestedRun(b, libbpf, kmeta, dir, n, v.v) })
		}
	}
}

// nestedRun checks that kmeta and libbpf write the same types for
// Nested(n, v), then times each.
func nestedRun(b *testing.B, libbpf, kmeta, dir string, n int, v hostile.NestedVariant) {
	raw, err := hostile.Nested(n, v)
	must(b, err)
	in := filepath.Join(dir, fmt.Sprintf("nested%d-%d.btf", v, n))
	must(b, os.WriteFile(in, raw, 0o644))
	kout, lout := filepath.Join(dir, "k.btf"), filepath.Join(dir, "l.btf")
	runTool(b, kmeta, "btf", "dedup", "-o", kout, in)
	runTool(b, libbpf, "-o", lout, in)
	k, err := os.ReadFile(kout)
	must(b, err)
	l, err := os.ReadFile(lout)
	must(b, err)
	if !bytes.Equal(btfBody(k), btfBody(l)) {
		b.Fatalf("N=%d: kmeta's output differs from libbpf's", n)
	}
	b.Run("kmeta-cli", func(b *testing.B) { procs(b, kmeta, "btf", "dedup", "-o", kout, in) })
	b.Run("libbpf", func(b *testing.B) { procs(b, libbpf, "-t", "-o", lout, in) })
}

// btfBody returns raw BTF after its header (libbpf 1.8 writes 32 bytes of
// it, kmeta 24).
func btfBody(raw []byte) []byte {
	if len(raw) < 8 {
		return raw
	}
	return raw[min(int(binary.NativeEndian.Uint32(raw[4:])), len(raw)):]
}
