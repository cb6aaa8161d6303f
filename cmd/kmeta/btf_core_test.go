package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestBTFCore: the text and JSON output of btf core for the shared
// fixture's program on the Debian kernel, and the exit statuses.
func TestBTFCore(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	prog := testfixtures.Path(t, "elf/prog.bpf.o.gz")
	out, err := kmeta(t, nil, "btf", "core", prog, "--target", deb)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want0 := "tp_btf/sched_process_exec handle_exec relo #0 insn #9 <byte_off> [13] struct task_struct.tgid (0:93 @ offset 1268) -> 2420"
	if len(lines) != 11 || lines[0] != want0 {
		t.Fatalf("got %d lines, first %q", len(lines), lines[0])
	}
	js, err := kmeta(t, nil, "btf", "core", prog, "--target", deb, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rs []map[string]any
	if err := json.Unmarshal([]byte(js), &rs); err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	for k, v := range map[string]any{"section": "tp_btf/sched_process_exec", "program": "handle_exec", "index": 0.0, "insn": 9.0, "relo_kind": "byte_off", "target": 2420.0} {
		if r[k] != v {
			t.Errorf("%s = %v, want %v", k, r[k], v)
		}
	}

	// A poisoned relocation exits 1 and has no orig and no target (issue
	// 40: orig was 0, a value core.Result calls meaningless there).
	fields := testfixtures.Path(t, "core/fields.bpf.o.gz")
	js, err = kmeta(t, nil, "btf", "core", fields, "--target", deb, "--json")
	if exitStatus(t.Context(), err) != exitNotFound {
		t.Fatalf("poisoned relocation: %v", err)
	}
	if err := json.Unmarshal([]byte(js), &rs); err != nil {
		t.Fatal(err)
	}
	_, hasOrig := rs[16]["orig"]
	_, hasTarget := rs[16]["target"]
	if hasOrig || hasTarget || rs[16]["poisoned"] != true || rs[16]["error"] == nil {
		t.Errorf("relo #16: %v", rs[16])
	}

	// Usage errors and unreadable objects exit 2.
	for _, args := range [][]string{
		{"btf", "core", prog, "--target", deb, "--kernel"},
		{"btf", "core", prog, "-B", deb},
		{"btf", "core", deb, "--target", deb},
	} {
		if _, err := kmeta(t, nil, args...); exitStatus(t.Context(), err) != exitFailure {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestBTFMinObj: btf min --obj writes bpftool's bytes, for one object and
// for several; batch mode writes one file per kernel.
func TestBTFMinObj(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	host := testfixtures.File(t, testfixtures.HostVmlinux)
	objs := map[string]string{}
	for _, o := range []string{"core/fields.bpf.o.gz", "core/types.bpf.o.gz", "core/matches.bpf.o.gz", "elf/prog.bpf.o.gz"} {
		objs[filepath.Base(o)] = testfixtures.Path(t, o)
	}
	out := filepath.Join(dir, "min.btf")
	if _, err := kmeta(t, nil, "btf", "min", deb, "--obj", objs["prog.bpf.o.gz"], "-o", out); err != nil {
		t.Fatal(err)
	}
	same(t, out, "core/bpftool/prog.debian-6.1.min.btf")
	args := []string{"btf", "min", host, "-o", out}
	for _, o := range []string{"prog", "fields", "types", "matches"} {
		args = append(args, "--obj", objs[o+".bpf.o.gz"])
	}
	if _, err := kmeta(t, nil, args...); err != nil {
		t.Fatal(err)
	}
	same(t, out, "core/bpftool/all.host-6.18.min.btf")

	// Batch: both kernels at once.
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := kmeta(t, nil, "btf", "min", "-d", outDir, "--obj", objs["prog.bpf.o.gz"], deb, host); err != nil {
		t.Fatal(err)
	}
	same(t, filepath.Join(outDir, filepath.Base(deb)), "core/bpftool/prog.debian-6.1.min.btf")
	same(t, filepath.Join(outDir, filepath.Base(host)), "core/bpftool/prog.host-6.18.min.btf")

	for _, bad := range [][]string{
		{"btf", "min", deb, "--obj", objs["prog.bpf.o.gz"], "--types", "task_struct", "-o", out},
		{"btf", "min", "-d", outDir, deb},
		{"btf", "min", "-d", outDir, "--obj", objs["prog.bpf.o.gz"], deb, deb},
		{"btf", "min", deb, "--obj", deb, "-o", out},
	} {
		if _, err := kmeta(t, nil, bad...); exitStatus(t.Context(), err) != exitFailure {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// TestBTFMinObjBadTarget: the target is opened lazily, but a record the
// relocations reach that refers to a type past the last still fails the
// command with the error opening it in full gives, and writes nothing;
// btf core, which opens its target lazily too, fails with that error.
func TestBTFMinObjBadTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := testfixtures.BreakMembers(t, testfixtures.Read(t, testfixtures.DebianVmlinux), "task_struct")
	target := filepath.Join(dir, "bad.btf")
	if err := os.WriteFile(target, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, want := btf.Open(context.Background(), target, btf.Options{})
	if want == nil {
		t.Fatal("Open accepts the broken task_struct")
	}
	out, prog := filepath.Join(dir, "min.btf"), testfixtures.Path(t, "elf/prog.bpf.o.gz")
	_, err := kmeta(t, nil, "btf", "min", target, "--obj", prog, "-o", out)
	if err == nil || !strings.HasPrefix(err.Error(), "btf min: "+want.Error()) || exitStatus(t.Context(), err) != exitFailure {
		t.Errorf("error %v (exit %d), want %v (exit %d)", err, exitStatus(t.Context(), err), want, exitFailure)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written: %v", out, err)
	}
	for _, args := range [][]string{{"btf", "core", prog, "--target", target}, {"btf", "core", "--json", prog, "--target", target}} {
		out, err := kmeta(t, nil, args...)
		if err == nil || !strings.HasPrefix(err.Error(), "btf core: "+want.Error()) || exitStatus(t.Context(), err) != exitFailure || out != "" {
			t.Errorf("%v: error %v (exit %d), want %v (exit %d); output %q", args, err, exitStatus(t.Context(), err), want, exitFailure, out)
		}
	}
}

// TestBTFCoreBadTargetLate: btf core on a lazily opened target whose bad
// record only a late relocation reaches prints nothing, text or JSON,
// and fails with the error opening it in full gives. The object repeats
// prog.bpf.o's first section ten times (some 8 KB of text, 30 KB of
// JSON) before the relocation of file.f_inode, whose pointer type now
// refers to a type past the last: the first 4 KB of lines were printed
// before the error, and the JSON array was cut.
func TestBTFCoreBadTargetLate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := testfixtures.BreakPointer(t, testfixtures.Read(t, testfixtures.DebianVmlinux), "file", "f_inode")
	target := writeFile(t, dir, "bad.btf", data)
	_, want := btf.Open(context.Background(), target, btf.Options{})
	if want == nil {
		t.Fatal("Open accepts the broken pointer")
	}
	obj, err := hostile.RepeatCORERelos(testfixtures.Read(t, "elf/prog.bpf.o.gz"), 10)
	if err != nil {
		t.Fatal(err)
	}
	prog := writeFile(t, dir, "prog.o", obj)
	for _, args := range [][]string{{"btf", "core", prog, "--target", target}, {"btf", "core", "--json", prog, "--target", target}} {
		out, err := kmeta(t, nil, args...)
		if err == nil || !strings.HasPrefix(err.Error(), "btf core: "+want.Error()) || exitStatus(t.Context(), err) != exitFailure || out != "" {
			t.Errorf("%v: error %v (exit %d), want %v (exit %d); %d bytes of output", args, err, exitStatus(t.Context(), err), want, exitFailure, len(out))
		}
	}
}

func same(tb testing.TB, path, golden string) {
	tb.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(got, testfixtures.Read(tb, golden)) {
		tb.Errorf("%s differs from %s", path, golden)
	}
}

// TestBTFCoreKernel: --kernel (with --sysfs) resolves against vmlinux and
// the module BTFs, as libbpf on that kernel: kvm_mmu_page comes from kvm.
func TestBTFCoreKernel(t *testing.T) {
	t.Parallel()
	sysfs := testfixtures.FakeSysfs(t, func(name string) bool { return name == "kvm" || name == "xfs" }, nil)
	obj := testfixtures.Path(t, "core/module.bpf.o.gz")
	out, err := kmeta(t, nil, "btf", "core", obj, "--kernel", "--sysfs", sysfs)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "struct kvm_mmu_page.unsync (0:0 @ offset 0) -> 33\n") {
		t.Errorf("kvm_mmu_page not resolved from kvm:\n%s", out)
	}
	// Without the module the field is missing: exit 1.
	sysfs = testfixtures.FakeSysfs(t, func(string) bool { return false }, nil)
	out, err = kmeta(t, nil, "btf", "core", obj, "--sysfs", sysfs)
	if exitStatus(t.Context(), err) != exitNotFound || !strings.Contains(out, "FAILS: no matching target") {
		t.Errorf("without kvm: %v\n%s", err, out)
	}
}
