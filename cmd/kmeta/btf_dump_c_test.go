package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
	out, err := kmetaBytes(t, nil, "btf", "dump", deb, "--format", "c", "--compat", "bpftool-7.1")
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
	out, err := kmetaBytes(t, mod, "btf", "dump", "-", "-B", deb, "--format", "c", "--compat", "bpftool-7.1")
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

// TestBTFDumpC75 checks the default header, --unsorted and --compat on the
// host fixture against the library, whose tests compare it with bpftool
// 7.5 and 7.1, and the unsorted header against the SHA-256 of bpftool
// 7.5's "format c unsorted" (see btf/cdump's TestGolden75).
func TestBTFDumpC75(t *testing.T) {
	t.Parallel()
	host := testfixtures.File(t, testfixtures.HostVmlinux)
	spec := testfixtures.HostSpec(t)
	wants := map[string][]byte{} // the library's header, by Options
	for _, tc := range []struct {
		args []string
		opts cdump.Options
	}{
		{nil, cdump.Options{}},
		{[]string{"--compat", "bpftool-7.5"}, cdump.Options{}},
		{[]string{"--unsorted"}, cdump.Options{Unsorted: true}},
		{[]string{"--compat", "bpftool-7.1"}, cdump.Options{Compat: cdump.CompatBpftool71}},
		{[]string{"--compat", "bpftool-7.1", "--unsorted"}, cdump.Options{Compat: cdump.CompatBpftool71}},
		{[]string{"--types", "task_struct"}, cdump.Options{Types: []string{"task_struct"}}},
	} {
		out, err := kmetaBytes(t, nil, append([]string{"btf", "dump", host, "--format", "c"}, tc.args...)...)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		key := fmt.Sprintf("%+v", tc.opts)
		want, ok := wants[key]
		if !ok {
			var buf bytes.Buffer
			if err := cdump.Write(&buf, spec, tc.opts); err != nil {
				t.Fatal(err)
			}
			want = buf.Bytes()
			wants[key] = want
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%q: differs from cdump.Write with %+v", tc.args, tc.opts)
		}
		if len(tc.args) == 1 && tc.args[0] == "--unsorted" {
			const bpftool75Unsorted = "7c1569270a1af87ced83b05738bebce6aac6b3d7a483b9cd4e36dd262e4f6237"
			if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != bpftool75Unsorted {
				t.Error("--unsorted differs from bpftool 7.5's format c unsorted")
			}
		}
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
		{"btf", "dump", deb, "--unsorted"},                                     // --unsorted needs --format c
		{"btf", "dump", deb, "--compat", "bpftool-7.1"},                        // idem
		{"btf", "dump", deb, "--format", "c", "--compat", "bpftool-7.3"},       // no such mode
		{"btf", "dump", deb, "--format", "c", "--unsorted", "--types", "task"}, // a mini header has no order to choose
	} {
		if _, err := kmetaBytes(t, nil, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
