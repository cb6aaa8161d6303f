package dwarf2btf_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// smallModules are the debug modules committed under testdata/elf, with
// pahole -j1's output for each under testdata/pahole/encode.
var smallModules = []string{"af_key", "vsock_loopback", "vmw_vsock_virtio_transport"}

// debianBase returns the Debian 6.1 vmlinux BTF the modules were built on.
func debianBase(tb testing.TB) *btf.Spec {
	tb.Helper()
	s, err := btf.Parse(testfixtures.Read(tb, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// encodeModule returns ko's types before the deduplication.
func encodeModule(tb testing.TB, ko []byte, base *btf.Spec, jobs int) []byte {
	tb.Helper()
	raw, err := dwarf2btf.Encode(context.Background(), ko, dwarf2btf.Options{Base: base, Jobs: jobs, NoDedup: true}, builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// TestIdenticalToPahole encodes the committed debug modules with 1, 2 and
// 8 workers and compares the deduplicated result with pahole 1.24 -j1's,
// byte for byte: identical to pahole and deterministic through the final
// deduplication.
func TestIdenticalToPahole(t *testing.T) {
	base := debianBase(t)
	dbase, err := dwarf2btf.NewBase(base, dwarf2btf.Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range smallModules {
		t.Run(m, func(t *testing.T) {
			ko := testfixtures.Read(t, "elf/"+m+".ko.gz")
			want := testfixtures.Read(t, "pahole/encode/"+m+".btf.gz")
			samePahole(t, ko, dwarf2btf.Options{Base: base, DedupBase: dbase}, want)
		})
	}
}

// samePahole encodes obj as opts say with 1, 2 and 8 workers through the
// final deduplication and reports each result that is not want, pahole's,
// byte for byte, with how they differ.
func samePahole(t *testing.T, obj []byte, opts dwarf2btf.Options, want []byte) {
	t.Helper()
	samePaholeOut(t, obj, opts, builder.Options{}, want)
}

// samePaholeOut is samePahole with the output written as out says.
func samePaholeOut(t *testing.T, obj []byte, opts dwarf2btf.Options, out builder.Options, want []byte) {
	t.Helper()
	for _, jobs := range []int{1, 2, 8} {
		opts.Jobs = jobs
		got, err := dwarf2btf.Encode(context.Background(), obj, opts, out)
		if err != nil {
			t.Fatalf("-j%d: %v", jobs, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("-j%d: %d bytes, pahole wrote %d; first difference at byte %d\n%s",
				jobs, len(got), len(want), firstDiff(got, want), explainDiff(got, want, opts.Base))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestDeterministic checks that the encoded types do not depend on the
// number of workers.
func TestDeterministic(t *testing.T) {
	base := debianBase(t)
	ko := testfixtures.Read(t, "elf/af_key.ko.gz")
	var first []byte
	for _, jobs := range []int{1, 2, 8} {
		raw := encodeModule(t, ko, base, jobs)
		if first == nil {
			first = raw
		} else if !bytes.Equal(raw, first) {
			t.Errorf("-j%d differs from -j1 at byte %d", jobs, firstDiff(raw, first))
		}
	}
}

// TestModules compares kvm.ko and xfs.ko, the biggest committed debug
// modules (testdata/elf/NAME.ko.xz), with pahole 1.24 -j1's output, byte
// for byte, encoded with 1, 2 and 8 workers, when KMETA_HEAVY=1 (it takes
// several seconds; .ci/run sets it). The first run reads the file itself,
// decompressing the .xz through internal/input.
func TestModules(t *testing.T) {
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("heavy check (kvm.ko, xfs.ko, several seconds): set KMETA_HEAVY=1")
	}
	base := debianBase(t)
	dbase, err := dwarf2btf.NewBase(base, dwarf2btf.Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"kvm", "xfs"} {
		t.Run(m, func(t *testing.T) {
			want := testfixtures.Read(t, "pahole/encode/"+m+".btf.gz")
			opts := dwarf2btf.Options{Base: base, DedupBase: dbase, Jobs: 1}
			got, err := dwarf2btf.EncodeFile(context.Background(), testfixtures.Path(t, "elf/"+m+".ko.xz"), opts, builder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s -j1: %d bytes, pahole wrote %d; first difference at byte %d", m, len(got), len(want), firstDiff(got, want))
			}
			ko := testfixtures.Read(t, "elf/"+m+".ko.xz")
			for _, jobs := range []int{2, 8} {
				opts.Jobs = jobs
				got, err := dwarf2btf.Encode(context.Background(), ko, opts, builder.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s -j%d: %d bytes, pahole wrote %d; first difference at byte %d", m, jobs, len(got), len(want), firstDiff(got, want))
				}
			}
		})
	}
}
