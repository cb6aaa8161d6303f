package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestBTFEncode runs "kmeta btf encode" on a debug module (compressed, as
// shipped) and compares the output with pahole 1.24's.
func TestBTFEncode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "vmlinux.btf")
	if err := os.WriteFile(base, testfixtures.Read(t, testfixtures.DebianVmlinux), 0o644); err != nil {
		t.Fatal(err)
	}
	in := testfixtures.Path(t, "elf/vsock_loopback.ko.gz")
	want := testfixtures.Read(t, "pahole/encode/vsock_loopback.btf.gz")
	for _, jobs := range []string{"1", "3"} {
		out := filepath.Join(dir, "out"+jobs+".btf")
		if _, err := kmeta(t, nil, "btf", "encode", in, "-B", base, "-o", out, "-j", jobs); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("-j%s: output differs from pahole's (%d bytes, want %d)", jobs, len(got), len(want))
		}
	}
	if _, err := kmeta(t, nil, "btf", "encode", in, "-B", base); err == nil {
		t.Error("no -o: no error")
	}
	if _, err := kmeta(t, nil, "btf", "encode", testfixtures.Path(t, testfixtures.DebianVmlinux), "-o", filepath.Join(dir, "x")); err == nil {
		t.Error("raw BTF input (no DWARF): no error")
	}
}
