package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestBTFDedupInputForms: a merge's inputs are read into buffers when
// they are raw BTF files, and opened as before otherwise (compressed,
// standard input): the result is the library's for the same modules, in
// the order given.
func TestBTFDedupInputForms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vmPath := testfixtures.File(t, testfixtures.DebianVmlinux)
	vm := testfixtures.DebianSpec(t)
	mods := testfixtures.Modules(t)
	raw := filepath.Join(dir, "af_key.btf")
	if err := os.WriteFile(raw, mods["af_key"], 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(mods["vsock_loopback"])
	w.Close()
	packed := filepath.Join(dir, "vsock_loopback.btf.gz")
	if err := os.WriteFile(packed, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.btf")
	if _, err := kmeta(t, mods["kvm"], "btf", "dedup", "-B", vmPath, "-o", out, raw, packed, "-", raw); err != nil {
		t.Fatal(err)
	}
	base, err := dedup.NewBase(vm, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var specs []*btf.Spec
	for _, n := range []string{"af_key", "vsock_loopback", "kvm", "af_key"} {
		specs = append(specs, testfixtures.Spec(t, mods[n], vm))
	}
	want, err := dedup.Specs(base, specs...)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := readOut(t, out, vm)
	testfixtures.CompareLines(t, rawDump(t, s, btf.ScopeOwn), rawDump(t, testfixtures.Spec(t, want, vm), btf.ScopeOwn))
}

// TestBTFDedupBadRawInput: a raw BTF file that does not parse is reported
// as opening it reports it, naming the file.
func TestBTFDedupBadRawInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vmPath := testfixtures.File(t, testfixtures.DebianVmlinux)
	mod := testfixtures.Modules(t)["af_key"]
	bad := filepath.Join(dir, "short.btf")
	if err := os.WriteFile(bad, mod[:len(mod)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "af_key.btf")
	if err := os.WriteFile(good, mod, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := kmeta(t, nil, "btf", "dedup", "-B", vmPath, "-o", filepath.Join(dir, "out.btf"), good, bad)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("error %v, want one naming %s", err, bad)
	}
	_, want := btf.Open(t.Context(), bad, btf.Options{Base: testfixtures.DebianSpec(t)})
	if want == nil || !strings.Contains(err.Error(), want.Error()) {
		t.Errorf("error %q, want it to hold btf.Open's %q", err, want)
	}
}
