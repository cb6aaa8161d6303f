package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestBTFDumpCGolden(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	out, err := kmetaBytes(t, nil, "btf", "dump", deb, "--format", "c")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, testfixtures.Read(t, "bpftool/debian-6.1.h.gz")) {
		t.Fatal("btf dump --format c differs from bpftool's debian-6.1.h")
	}
}

// TestBTFDumpCSplit prints a module read from stdin on its base with -B:
// base and module types, as "bpftool -B vmlinux btf dump file kvm format c".
func TestBTFDumpCSplit(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	mod := testfixtures.Modules(t)["kvm"]
	out, err := kmetaBytes(t, mod, "btf", "dump", "-", "-B", deb, "--format", "c")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, testfixtures.Read(t, "bpftool/modules/kvm.h.gz")) {
		t.Fatal("btf dump -B --format c differs from bpftool's kvm.h")
	}
}

// TestBTFDumpCLive dumps this machine's kernel BTF, the default input, and
// compares with the library's header for the same file; btf/cdump's
// TestAgainstBpftoolRunningKernel compares that one with bpftool's.
func TestBTFDumpCLive(t *testing.T) {
	t.Parallel()
	spec, err := btf.Open(context.Background(), defaultVmlinux, btf.Options{})
	if err != nil {
		t.Skipf("no kernel BTF here: %v", err)
	}
	defer spec.Close()
	var want bytes.Buffer
	if err := cdump.Write(&want, spec, cdump.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := kmetaBytes(t, nil, "btf", "dump", "--format", "c")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("kmeta btf dump --format c differs from cdump.Write on " + defaultVmlinux)
	}
}

// TestBTFDumpCTypes makes the mini header of task_struct and sk_buff and
// compiles it alone with clang -target bpf.
func TestBTFDumpCTypes(t *testing.T) {
	t.Parallel()
	host := testfixtures.File(t, testfixtures.HostVmlinux)
	out, err := kmetaBytes(t, nil, "btf", "dump", host, "--format", "c", "--types", "task_struct, sk_buff")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#ifndef __VMLINUX_H__\n", "\nstruct task_struct {\n", "\nstruct sk_buff {\n", "#endif /* __VMLINUX_H__ */\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no %q in the mini header", want)
		}
	}
	if bytes.Contains(out, []byte("struct kvm_vcpu")) {
		t.Error("mini header has the unrelated struct kvm_vcpu")
	}
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang not installed: not compiling the mini header (CI installs clang)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "vmlinux.h"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	src := "#include \"vmlinux.h\"\nint f(struct task_struct *t, struct sk_buff *s) { return t->pid + s->len; }\n"
	if err := os.WriteFile(filepath.Join(dir, "prog.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(clang, "-target", "bpf", "-O2", "-c", "prog.c", "-o", "prog.o")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang -target bpf -c: %v\n%.3000s", err, msg)
	}
}

func TestBTFDumpCErrors(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	out, err := kmetaBytes(t, nil, "btf", "dump", deb, "--format", "c", "--types", "task_struct,no_such_type_xyz")
	if !errors.Is(err, btf.ErrNotFound) {
		t.Errorf("unknown type: err = %v, want ErrNotFound", err)
	}
	if len(out) != 0 {
		t.Errorf("unknown type: %d bytes printed", len(out))
	}
	for _, args := range [][]string{
		{"btf", "dump", deb, "--types", "task_struct"},             // --types needs --format c
		{"btf", "dump", deb, "--format", "raw", "--types", "task"}, // idem
		{"btf", "dump", deb, "--format", "c", "--json"},            // JSON is raw only
		{"btf", "dump", deb, "--format", "h"},
	} {
		if _, err := kmetaBytes(t, nil, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
