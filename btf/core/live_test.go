package core_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// liveKernels are the kernels the live oracles run on, written to dir:
// the running kernel's BTF when it can be read, which no golden covers,
// and the committed kernels when KMETA_HEAVY=1 (as CI runs) or when the
// running kernel's BTF cannot be read. The committed kernels' bpftool and
// libbpf results are committed goldens, which TestMinimalBpftool,
// TestMinimalBpftoolGenerated, TestLibbpf and TestLibbpfGenerated compare
// in every run; rerunning the tools on them only checks that the
// installed tools still write those goldens.
func liveKernels(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	if _, err := os.ReadFile("/sys/kernel/btf/vmlinux"); err == nil {
		out["running"] = "/sys/kernel/btf/vmlinux"
	}
	if len(out) == 0 || os.Getenv("KMETA_HEAVY") == "1" {
		maps.Copy(out, writeAll(tb, dir, kernels, ".btf"))
	} else {
		tb.Logf("the running kernel only; KMETA_HEAVY=1 adds the committed kernels")
	}
	return out
}

// stderr returns what a command that failed wrote to its standard
// error, on a line of its own.
func stderr(err error) string {
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return "\n" + string(ee.Stderr)
	}
	return ""
}

// runAll runs the commands, four at a time, and returns their standard
// output and error: the tools spend most of their time off the CPU (a
// bpftool gen min_core_btf run mostly waits), so running them side by
// side shortens the test.
func runAll(cmds []*exec.Cmd) (outs [][]byte, errs []error) {
	outs, errs = make([][]byte, len(cmds)), make([]error, len(cmds))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i], errs[i] = c.Output()
		}()
	}
	wg.Wait()
	return outs, errs
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
	t.Parallel() // it waits on bpftool
	dir := t.TempDir()
	ks, objs := liveKernels(t, dir), liveObjects(t, dir)
	type job struct{ kname, kpath, name, out string }
	var jobs []job
	var cmds []*exec.Cmd
	cases := mergeCases(minCases(), genMinCases())
	for kname, kpath := range ks {
		for name, list := range cases {
			out := filepath.Join(dir, kname+"."+name+".btf")
			args := []string{"gen", "min_core_btf", kpath, out}
			for _, o := range list {
				args = append(args, objs[o])
			}
			jobs = append(jobs, job{kname, kpath, name, out})
			cmds = append(cmds, exec.Command(bpftool, args...))
		}
	}
	_, errs := runAll(cmds)
	specs := map[string]*btf.Spec{}
	for i, j := range jobs {
		if errs[i] != nil {
			t.Fatalf("%v: %v%s", cmds[i].Args, errs[i], stderr(errs[i]))
		}
		s := specs[j.kname]
		if s == nil {
			var err error
			if s, err = btf.Open(context.Background(), j.kpath, btf.Options{}); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			specs[j.kname] = s
		}
		var loaded []core.Object
		for _, o := range cases[j.name] {
			loaded = append(loaded, object(t, o))
		}
		b, err := core.TypesFor(context.Background(), core.NewTarget(s), loaded)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Marshal(builderOptions)
		if err != nil {
			t.Fatal(err)
		}
		if want := readFile(t, j.out); !bytes.Equal(got, want) {
			t.Errorf("%s on %s: differs from bpftool:\n%s", j.name, j.kname, diffDumps(t, want, got))
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
	t.Parallel() // it waits on coreref
	ks, objs := liveKernels(t, dir), liveObjects(t, dir)
	type job struct{ kname, kpath, obj string }
	var jobs []job
	var cmds []*exec.Cmd
	for kname, kpath := range ks {
		for _, o := range slices.Concat(objectOrder, []string{"ambig", "arrshift", "patchfail"}, generated) {
			jobs = append(jobs, job{kname, kpath, o})
			cmds = append(cmds, exec.Command(bin, kpath, objs[o]))
		}
	}
	logs, errs := runAll(cmds)
	specs := map[string]*btf.Spec{}
	for i, j := range jobs {
		if errs[i] != nil {
			t.Fatalf("coreref %s %s: %v%s", j.kpath, objs[j.obj], errs[i], stderr(errs[i]))
		}
		s := specs[j.kname]
		if s == nil {
			var err error
			if s, err = btf.Open(context.Background(), j.kpath, btf.Options{}); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			specs[j.kname] = s
		}
		want := parseGolden(t, logs[i])
		rs, err := core.Resolve(context.Background(), object(t, j.obj), core.NewTarget(s))
		if err != nil {
			t.Fatal(err)
		}
		got, err := fromResults(rs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s on %s (-libbpf +kmeta):\n%s", j.obj, j.kname, diff)
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
