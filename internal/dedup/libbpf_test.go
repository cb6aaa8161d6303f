package dedup_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// The tests in this file compare with the system's libbpf (Debian's
// libbpf-dev 1.1 in CI): testdata/libbpf/libbpfdedup.c is built with the C
// compiler and run on the same inputs. Without cc or libbpf-dev they skip.
// KMETA_LIBBPFDEDUP=PATH uses a reference program built elsewhere instead
// (against another libbpf, such as 1.8 built from source).

var (
	refOnce sync.Once
	refPath string
	refErr  error
)

// libbpfdedup returns the path of the built reference program.
func libbpfdedup(tb testing.TB) string {
	tb.Helper()
	refOnce.Do(func() {
		if p := os.Getenv("KMETA_LIBBPFDEDUP"); p != "" {
			refPath = p
			return
		}
		var cc string
		for _, name := range []string{"cc", "gcc", "clang"} {
			if p, err := exec.LookPath(name); err == nil {
				cc = p
				break
			}
		}
		if cc == "" {
			refErr = errors.New("no cc, gcc or clang in PATH")
			return
		}
		dir, err := os.MkdirTemp("", "libbpfdedup")
		if err != nil {
			refErr = err
			return
		}
		refPath = filepath.Join(dir, "libbpfdedup")
		out, err := exec.Command(cc, "-O2", "-o", refPath, "testdata/libbpf/libbpfdedup.c", "-lbpf").CombinedOutput()
		if err != nil {
			refErr = &exec.Error{Name: string(out), Err: err}
		}
	})
	if refErr != nil {
		tb.Skipf("libbpf reference: needs a C compiler and libbpf-dev: %v", refErr)
	}
	return refPath
}

// refVersion returns the reference's libbpf version as major*100+minor.
func refVersion(tb testing.TB) int {
	tb.Helper()
	out, err := exec.Command(libbpfdedup(tb), "-V").Output()
	if err != nil {
		tb.Fatal(err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(string(out), "%d.%d", &major, &minor); err != nil {
		tb.Fatalf("libbpfdedup -V: %q: %v", out, err)
	}
	return major*100 + minor
}

// compatOf returns the Compat that matches the reference's libbpf: 1.8
// and later, or 1.1 (Debian 12's libbpf-dev in CI) for anything older.
// Checked against both: 1.8 built from source (KMETA_LIBBPFDEDUP) and the
// system's 1.1.2, on all 1,121 modules (KMETA_HEAVY=1); 1.1 and 1.8
// differ on libnvdimm.
func compatOf(tb testing.TB) dedup.Compat {
	if refVersion(tb) < 108 {
		return dedup.CompatLibbpf11
	}
	return dedup.CompatLibbpf18
}

// writeTemp writes data to a file in a test directory and returns its path.
func writeTemp(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// runRef runs the reference program with args.
func runRef(tb testing.TB, args ...string) {
	tb.Helper()
	if out, err := exec.Command(libbpfdedup(tb), args...).CombinedOutput(); err != nil {
		tb.Fatalf("libbpfdedup %v: %v\n%s", args, err, out)
	}
}

// readRef parses a file the reference program wrote.
func readRef(tb testing.TB, path string, base *btf.Spec) *btf.Spec {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return parse(tb, b, base)
}

// TestLibbpfEachModule deduplicates modules one by one against the base,
// with kmeta and with libbpf, and compares the raw dumps. The default run
// takes a few modules; KMETA_HEAVY=1 takes all 1,121.
func TestLibbpfEachModule(t *testing.T) {
	compat := compatOf(t)
	vm, base := debian(t)
	names := []string{"af_key", "vsock_loopback", "kvm", "xfs", "btrfs", "mlx5_core"}
	if os.Getenv("KMETA_HEAVY") == "1" {
		names = mergedOrder(t)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	os.Mkdir(in, 0o755)
	os.Mkdir(out, 0o755)
	vmPath := writeTemp(t, dir, "vmlinux.btf", testfixtures.Read(t, testfixtures.DebianVmlinux))
	args := []string{"-B", vmPath, "-d", out}
	for _, name := range names {
		args = append(args, writeTemp(t, in, name+".btf", testfixtures.Modules(t)[name]))
	}
	runRef(t, args...)
	for _, name := range names {
		m := dedup.New(base, dedup.Options{Compat: compat})
		if err := m.AddSpec(module(t, name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, err := m.Dedup(builder.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := os.ReadFile(filepath.Join(out, name+".btf"))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { equalBTF(t, raw, want, vm) })
	}
}

// TestLibbpfStandalone compares small standalone cases with libbpf: the
// fuzz seeds (a BPF object's BTF, the example graph), alone and appended
// to themselves.
// equalRefStandalone deduplicates specs, appended, and compares the
// bytes with the reference's deduplication of the files ins, written to
// out.
func equalRefStandalone(t *testing.T, out string, ins []string, specs ...*btf.Spec) {
	t.Helper()
	runRef(t, append([]string{"-o", out}, ins...)...)
	raw, err := dedup.Specs(nil, specs...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	equalBTF(t, raw, want, nil)
}

func TestLibbpfStandalone(t *testing.T) {
	libbpfdedup(t)
	dir := t.TempDir()
	for i, seed := range fuzzSeeds(t) {
		in := writeTemp(t, dir, fmt.Sprintf("seed%d.btf", i), seed)
		s := parse(t, seed, nil)
		for n, specs := range [][]*btf.Spec{{s}, {s, s}} {
			t.Run(fmt.Sprintf("seed%d-x%d", i, n+1), func(t *testing.T) {
				out := filepath.Join(dir, fmt.Sprintf("out%d-%d.btf", i, n))
				ins := []string{in}
				if n == 1 {
					ins = append(ins, in)
				}
				equalRefStandalone(t, out, ins, specs...)
			})
		}
	}
}

// TestLibbpfManyCopies appends the Debian vmlinux to itself 12 times:
// 1,139,700 types in, more than BTF's 1,048,575 ids (libbpf appends that
// many, and so does kmeta: only the output must fit), 98,891 out, the same
// as libbpf's. KMETA_HEAVY=1 only.
func TestLibbpfManyCopies(t *testing.T) {
	heavy(t)
	libbpfdedup(t)
	vm, _ := debian(t)
	dir := t.TempDir()
	vmPath := writeTemp(t, dir, "vmlinux.btf", testfixtures.Read(t, testfixtures.DebianVmlinux))
	out := filepath.Join(dir, "out.btf")
	args := []string{"-o", out}
	var specs []*btf.Spec
	for range 12 {
		args = append(args, vmPath)
		specs = append(specs, vm)
	}
	runRef(t, args...)
	raw, err := dedup.Specs(nil, specs...)
	if err != nil {
		t.Fatal(err)
	}
	equalDumps(t, dumpOwn(t, parse(t, raw, nil)), dumpOwn(t, readRef(t, out, nil)))
}
