package core_test

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// liveKernels are the committed kernels, written to dir, and the running
// kernel's BTF when it can be read: the oracles run on all of them.
func liveKernels(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := writeAll(tb, dir, kernels, ".btf")
	if _, err := os.ReadFile("/sys/kernel/btf/vmlinux"); err == nil {
		out["running"] = "/sys/kernel/btf/vmlinux"
	}
	return out
}

// liveObjects writes the committed objects to dir.
func liveObjects(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	return writeAll(tb, dir, objects, ".bpf.o")
}

// writeAll writes the fixtures files (name -> testdata path) to dir as
// name+suffix, and returns their paths.
func writeAll(tb testing.TB, dir string, files map[string]string, suffix string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for name, rel := range files {
		p := filepath.Join(dir, name+suffix)
		if err := os.WriteFile(p, testfixtures.Read(tb, rel), 0o600); err != nil {
			tb.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// TestBpftoolLive runs bpftool gen min_core_btf itself, on the committed
// kernels and the running one, for each object and all of them, and
// compares its output with TypesFor's.
func TestBpftoolLive(t *testing.T) {
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("needs bpftool (apt-get install bpftool)")
	}
	dir := t.TempDir()
	ks, objs := liveKernels(t, dir), liveObjects(t, dir)
	for kname, kpath := range ks {
		s, err := btf.Open(context.Background(), kpath, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for name, list := range mergeCases(minCases(), genMinCases()) {
			out := filepath.Join(dir, "out.btf")
			args := []string{"gen", "min_core_btf", kpath, out}
			var loaded []*bpfelf.Object
			for _, o := range list {
				args = append(args, objs[o])
				loaded = append(loaded, object(t, o))
			}
			if msg, err := exec.Command(bpftool, args...).CombinedOutput(); err != nil {
				t.Fatalf("bpftool %v: %v\n%s", args, err, msg)
			}
			b, err := core.TypesFor(context.Background(), core.NewTarget(s), loaded)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.Marshal(builderOptions)
			if err != nil {
				t.Fatal(err)
			}
			if want := readFile(t, out); !bytes.Equal(got, want) {
				t.Errorf("%s on %s: differs from bpftool:\n%s", name, kname, diffDumps(t, want, got))
			}
		}
	}
}

// TestLibbpfLive builds testdata/core/coreref.c against the installed
// libbpf (Debian's libbpf-dev 1.1) and compares its log of every
// relocation with Resolve's results, on the committed kernels and the
// running one.
func TestLibbpfLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("libbpf's loader needs root (it creates maps)")
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("needs gcc and libbpf-dev")
	}
	if _, err := os.Stat("/usr/include/bpf/libbpf.h"); err != nil {
		t.Skip("needs libbpf-dev (apt-get install libbpf-dev)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "coreref")
	if msg, err := exec.Command(cc, "-O1", "-o", bin, testfixtures.Path(t, "core/coreref.c"), "-lbpf").CombinedOutput(); err != nil {
		t.Skipf("cannot build coreref.c: %v\n%s", err, msg)
	}
	ks, objs := liveKernels(t, dir), liveObjects(t, dir)
	for kname, kpath := range ks {
		s, err := btf.Open(context.Background(), kpath, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, o := range slices.Concat(objectOrder, []string{"ambig", "arrshift", "patchfail"}, generated) {
			log, err := exec.Command(bin, kpath, objs[o]).Output()
			if err != nil {
				t.Fatalf("coreref %s %s: %v", kpath, objs[o], err)
			}
			want := parseGolden(t, log)
			rs, err := core.Resolve(context.Background(), object(t, o), core.NewTarget(s))
			if err != nil {
				t.Fatal(err)
			}
			got, err := fromResults(rs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s on %s (-libbpf +kmeta):\n%s", o, kname, diff)
			}
		}
	}
}

// mergeCases joins the min_core_btf cases of the handwritten and the
// generated objects, naming the second "gen-...".
func mergeCases(hand, gen map[string][]string) map[string][]string {
	m := maps.Clone(hand)
	for name, list := range gen {
		m["gen-"+name] = list
	}
	return m
}
