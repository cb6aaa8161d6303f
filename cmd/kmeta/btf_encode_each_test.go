package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// eachTree makes a directory of modules: the committed objects under
// module names, and one damaged module among them.
func eachTree(t *testing.T) (dir string, good []string) {
	t.Helper()
	dir = t.TempDir()
	for _, name := range []string{"tags-x86_64", "multi-x86_64", "percpu-x86_64", "kinds-x86_64", "edge-x86_64"} {
		data := testfixtures.Read(t, "dwarf/"+name+".o.gz")
		if err := os.WriteFile(filepath.Join(dir, name+".ko"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		good = append(good, name)
	}
	bad := testfixtures.Read(t, "dwarf/kinds-x86_64.o.gz")[:3000]
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "broken.ko"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, good
}

// TestEncodeEachFailure: a module that fails is named, the others are
// written as btf encode writes each alone, and the status is 2.
func TestEncodeEachFailure(t *testing.T) {
	dir, good := eachTree(t)
	base := testfixtures.File(t, "pahole/dwarf/kinds-x86_64.btf.gz")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"btf", "encode", "--each", "-j", "3", "-B", base, "-d", out, dir},
		nil, &stdout, &stderr)
	if exitStatus(context.Background(), err) != exitFailure || !strings.Contains(err.Error(), "1 of 6 modules failed") {
		t.Fatalf("error %v, want status 2 and 1 of 6 modules failed", err)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "kmeta: btf encode: ") || !strings.Contains(lines[0], "broken.ko") {
		t.Errorf("stderr %q, want one line naming broken.ko", stderr.String())
	}
	for _, name := range good {
		got, err := os.ReadFile(filepath.Join(out, name+".btf"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := kmetaBytes(t, nil, "btf", "encode", filepath.Join(dir, name+".ko"), "-B", base, "-o", "-")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: not what btf encode writes for it alone", name)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != len(good) {
		t.Errorf("%d files in OUTDIR, want %d", len(ents), len(good))
	}
}

// TestEncodeEachKo: --ko writes each module with its .BTF as kmeta pahole
// -J writes it.
func TestEncodeEachKo(t *testing.T) {
	if _, err := exec.LookPath("objcopy"); err != nil {
		t.Skip("objcopy (binutils) not installed")
	}
	t.Setenv("LLVM_OBJCOPY", "objcopy")
	dir, good := eachTree(t)
	base := testfixtures.File(t, "pahole/dwarf/kinds-x86_64.btf.gz")
	out := t.TempDir()
	paths := make([]string, len(good))
	for i, name := range good {
		paths[i] = filepath.Join(dir, name+".ko")
	}
	if _, err := kmeta(t, nil, append([]string{"btf", "encode", "--each", "--ko", "-B", base, "-d", out}, paths...)...); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if _, err := kmeta(t, nil, "pahole", "-J", "--btf_features=default", "--btf_base", base, p); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(p)
		if got, _ := os.ReadFile(filepath.Join(out, filepath.Base(p))); !bytes.Equal(got, want) {
			t.Errorf("%s: not what kmeta pahole -J writes", filepath.Base(p))
		}
	}
}

func TestEncodeEachUsage(t *testing.T) {
	dir, _ := eachTree(t)
	out := t.TempDir()
	for _, args := range [][]string{
		{"btf", "encode", "--each", "-d", out, dir},
		{"btf", "encode", "--each", "-B", "x", dir},
		{"btf", "encode", "--each", "-B", "x", "-d", out, "-o", "y", dir},
		{"btf", "encode", "--each", "-B", "x", "-d", out, "--elf", dir},
		{"btf", "encode", "a", "b", "-o", "y"},
		{"btf", "encode", "a", "-d", out},
	} {
		if _, err := kmeta(t, nil, args...); exitStatus(context.Background(), err) != exitFailure ||
			!strings.Contains(err.Error(), "usage: kmeta btf encode") {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
