package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestBTFDedup: "btf dedup" of a module appended to itself gives what the
// library gives (checked against libbpf in btf/dedup), and --each writes
// one file per module, each equal to that module deduplicated alone.
func TestBTFDedup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vmPath := testfixtures.File(t, testfixtures.DebianVmlinux)
	vm := testfixtures.DebianSpec(t)
	base, err := dedup.NewBase(vm, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	var paths []string
	for _, name := range []string{"af_key", "vsock_loopback", "kvm"} {
		p := filepath.Join(dir, name+".btf")
		if err := os.WriteFile(p, mods[name], 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	want := func(names ...string) []byte {
		var specs []*btf.Spec
		for _, n := range names {
			specs = append(specs, testfixtures.Spec(t, mods[n], vm))
		}
		raw, err := dedup.Specs(base, specs...)
		if err != nil {
			t.Fatal(err)
		}
		return rawDump(t, testfixtures.Spec(t, raw, vm), btf.ScopeOwn)
	}

	out := filepath.Join(dir, "kvm2.btf")
	if _, err := kmeta(t, nil, "btf", "dedup", "-B", vmPath, "-o", out, paths[2], paths[2]); err != nil {
		t.Fatal(err)
	}
	s, _ := readOut(t, out, vm)
	testfixtures.CompareLines(t, rawDump(t, s, btf.ScopeOwn), want("kvm", "kvm"))

	outDir := filepath.Join(dir, "each")
	os.Mkdir(outDir, 0o755)
	args := append([]string{"btf", "dedup", "--each", "-B", vmPath, "-d", outDir, "-j", "2"}, paths...)
	if _, err := kmeta(t, nil, args...); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"af_key", "vsock_loopback", "kvm"} {
		s, _ := readOut(t, filepath.Join(outDir, name+".btf"), vm)
		testfixtures.CompareLines(t, rawDump(t, s, btf.ScopeOwn), want(name))
	}
}

// TestBTFDedupStandalone: two standalone inputs merge into standalone
// output that the kernel accepts.
func TestBTFDedupStandalone(t *testing.T) {
	t.Parallel()
	vmPath := testfixtures.File(t, testfixtures.DebianVmlinux)
	out := filepath.Join(t.TempDir(), "x2.btf")
	if _, err := kmeta(t, nil, "btf", "dedup", "-o", out, vmPath, vmPath); err != nil {
		t.Fatal(err)
	}
	s, data := readOut(t, out, nil)
	if s.NumTypes() != 95331 { // libbpf's count (testdata/README.md)
		t.Errorf("%d types, libbpf gives 95331", s.NumTypes())
	}
	loadKernel(t, data)
}

func TestBTFDedupErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vmPath := testfixtures.File(t, testfixtures.DebianVmlinux)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"no output", []string{"btf", "dedup", vmPath}},
		{"each without base", []string{"btf", "dedup", "--each", "-d", dir, vmPath}},
		{"each without dir", []string{"btf", "dedup", "--each", "-B", vmPath, vmPath}},
		{"output is input", []string{"btf", "dedup", "-o", vmPath, vmPath}},
		{"each overwrites input", []string{"btf", "dedup", "--each", "-B", vmPath, "-d", filepath.Dir(vmPath), vmPath}},
		{"missing file", []string{"btf", "dedup", "-o", filepath.Join(dir, "x"), filepath.Join(dir, "nope")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := kmeta(t, nil, c.args...); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// TestBTFDedupOutputIsInput: a merge on a base refuses an output that is
// one of its inputs or its base, by name or by another name (a hard link,
// a relative path), before it writes anything, and leaves the file alone.
func TestBTFDedupOutputIsInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vmPath := testfixtures.File(t, testfixtures.DebianVmlinux)
	mod := filepath.Join(dir, "af_key.btf")
	data := testfixtures.Modules(t)["af_key"]
	if err := os.WriteFile(mod, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.btf")
	if err := os.Link(mod, link); err != nil {
		t.Skipf("hard link: %v", err)
	}
	base := filepath.Join(dir, "vmlinux.btf")
	if err := os.Symlink(vmPath, base); err != nil {
		t.Skipf("symlink: %v", err)
	}
	for _, c := range []struct{ name, out string }{
		{"same name", mod},
		{"hard link", link},
		{"unclean name", filepath.Join(dir, ".", "af_key.btf")},
		{"the base", base},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := kmeta(t, nil, "btf", "dedup", "-B", base, "-o", c.out, mod, mod)
			if err == nil || !strings.Contains(err.Error(), "refusing to overwrite") {
				t.Fatalf("got %v, want a refusal to overwrite an input", err)
			}
			if got, err := os.ReadFile(mod); err != nil || string(got) != string(data) {
				t.Fatalf("input changed (%v)", err)
			}
		})
	}
}

// TestDedupBadInputSilentBase checks that a merge whose input is bad
// fails at once even while its base is still read from a standard input
// that nobody writes: the goroutine reading the base stops with the
// command, which returns only after it.
func TestDedupBadInputSilentBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.btf", []byte("not BTF at all"))
	stdin, w := io.Pipe()
	defer w.Close()
	done := make(chan error, 1)
	go func() {
		var out, errOut bytes.Buffer
		done <- run(context.Background(), []string{"btf", "dedup", "-B", "-", "-o", filepath.Join(dir, "out.btf"), bad}, stdin, &out, &errOut)
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "bad.btf") {
			t.Fatalf("err = %v, want one naming bad.btf", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the merge waits for its base on a silent stdin")
	}
}
