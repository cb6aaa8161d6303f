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

// TestBTFEncodeKernel612 encodes a debug module of Debian 13's 6.12 kernel
// as its build did (the default, and --features with Makefile.btf's list)
// and compares the output with the .BTF of the shipped module; --like
// pahole-1.24 gives other bytes, and bad --like or --features values are
// usage errors.
func TestBTFEncodeKernel612(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "vmlinux.btf")
	if err := os.WriteFile(base, testfixtures.Read(t, "btf/debian-6.12-cloud.btf.zst"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := testfixtures.Path(t, "elf/debian-6.12/tun.ko.zst")
	want := testfixtures.Read(t, "pahole/encode/debian-6.12/tun.btf.gz")
	for i, extra := range [][]string{
		nil,
		{"--features", "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"},
		{"--like", "pahole-1.30", "--features", "+reproducible_build"},
		{"--like", "pahole-1.24"},
	} {
		out := filepath.Join(dir, "out.btf")
		args := append([]string{"btf", "encode", in, "-B", base, "-o", out, "-j", "2"}, extra...)
		if _, err := kmeta(t, nil, args...); err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if same := bytes.Equal(got, want); same != (i < 3) {
			t.Errorf("%v: output the same as the shipped .BTF: %v", extra, same)
		}
	}
	for _, bad := range [][]string{{"--like", "pahole-9"}, {"--features", "bogus"}, {"--like", "pahole-1.24", "--features", "var"}} {
		args := append([]string{"btf", "encode", in, "-B", base, "-o", filepath.Join(dir, "x")}, bad...)
		if _, err := kmeta(t, nil, args...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
