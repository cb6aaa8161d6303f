package builder_test

import (
	"encoding/binary"
	"os"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func mustParse(tb testing.TB, b []byte, base *btf.Spec) *btf.Spec {
	tb.Helper()
	s, err := btf.Parse(b, btf.Options{Base: base})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// specs caches the parsed fixtures: they are read-only and safe to share.
var specs sync.Map // testdata path -> *btf.Spec

func fixture(tb testing.TB, rel string) *btf.Spec {
	tb.Helper()
	if s, ok := specs.Load(rel); ok {
		return s.(*btf.Spec)
	}
	s := mustParse(tb, testfixtures.Read(tb, rel), nil)
	specs.Store(rel, s)
	return s
}

func hostSpec(tb testing.TB) *btf.Spec   { return fixture(tb, testfixtures.HostVmlinux) }
func debianSpec(tb testing.TB) *btf.Spec { return fixture(tb, testfixtures.DebianVmlinux) }

func module(tb testing.TB, name string) *btf.Spec {
	tb.Helper()
	return mustParse(tb, testfixtures.Modules(tb)[name], debianSpec(tb))
}

var dump = testfixtures.RawDump

func marshal(tb testing.TB, b *builder.Builder, opts builder.Options) []byte {
	tb.Helper()
	out, err := b.Marshal(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

var (
	bpfOnce sync.Once
	bpfErr  error
)

// requireKernel skips the test unless we run as root on a kernel whose
// bpf(BPF_BTF_LOAD) works; CI runs as root, so these tests run there.
func requireKernel(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("kernel acceptance needs root (CAP_BPF) for bpf(BPF_BTF_LOAD); skipped")
	}
	bpfOnce.Do(func() { bpfErr = bpfsys.Available() })
	if bpfErr != nil {
		tb.Skipf("bpf(BPF_BTF_LOAD) does not work here: %v", bpfErr)
	}
}

// kernelLoad loads raw BTF into the kernel and fails with the verifier log
// if it is rejected.
func kernelLoad(tb testing.TB, raw []byte) {
	tb.Helper()
	requireKernel(tb)
	f, err := bpfsys.LoadBTF(raw)
	if err != nil {
		msg := err.Error()
		if len(msg) > 4000 {
			msg = msg[:2000] + "\n...\n" + msg[len(msg)-2000:]
		}
		tb.Fatalf("kernel rejected %d bytes of BTF: %s", len(raw), msg)
	}
	f.Close()
}

var (
	littleEndian = binary.LittleEndian
	bigEndian    = binary.BigEndian
)
