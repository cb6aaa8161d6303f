package main

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// writeFixture writes testdata/rel, decompressed, into dir as name.
func writeFixture(t *testing.T, dir, name, rel string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, testfixtures.Read(t, rel), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkSections compares the files split and base with the sections of a
// distilled module fixture.
func checkSections(t *testing.T, what string, split, base []byte, fixture string) {
	t.Helper()
	wantSplit, wantBase := testfixtures.DistilledSections(t, fixture)
	if !bytes.Equal(split, wantSplit) || !bytes.Equal(base, wantBase) {
		t.Errorf("%s: .BTF (%d bytes) or .BTF.base (%d) differ from pahole's (%d, %d)",
			what, len(split), len(base), len(wantSplit), len(wantBase))
	}
}

// elfSections returns the .BTF and .BTF.base sections of the ELF file at p.
func elfSections(t *testing.T, p string) (split, base []byte) {
	t.Helper()
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range []struct {
		name string
		dst  *[]byte
	}{{".BTF", &split}, {".BTF.base", &base}} {
		if sec := f.Section(s.name); sec != nil {
			*s.dst, _ = sec.Data()
		}
	}
	return split, base
}

// TestBTFEncodeDistilled encodes 6.12's af_key with the distilled_base
// feature, raw and as an ELF object, and compares both sections with
// pahole 1.30's; then the flags that the feature needs or excludes.
func TestBTFEncodeDistilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeFixture(t, dir, "vmlinux.btf", "btf/debian-6.12-cloud.btf.zst")
	in := testfixtures.Path(t, "elf/debian-6.12/af_key.ko.zst")
	out, baseOut, obj := filepath.Join(dir, "out.btf"), filepath.Join(dir, "out.base"), filepath.Join(dir, "out.o")
	args := []string{"btf", "encode", in, "-B", base, "--features", "+distilled_base"}
	if _, err := kmeta(t, nil, append(args, "-o", out, "--base-out", baseOut)...); err != nil {
		t.Fatal(err)
	}
	split, _ := os.ReadFile(out)
	b, _ := os.ReadFile(baseOut)
	checkSections(t, "raw", split, b, "debian-6.12-af_key")
	if _, err := kmeta(t, nil, append(args, "-o", obj)...); err != nil {
		t.Fatal(err)
	}
	split, b = elfSections(t, obj)
	checkSections(t, "ELF", split, b, "debian-6.12-af_key")

	x := filepath.Join(dir, "x")
	for _, bad := range [][]string{
		append(args, "-o", x),                                             // raw, no --base-out
		append(args, "-o", obj, "--base-out", baseOut),                    // ELF and --base-out
		append(args, "-o", x, "--base-out", x),                            // one file for both
		{"btf", "encode", in, "--features", "+distilled_base", "-o", obj}, // no base
		{"btf", "encode", in, "-B", base, "-o", x, "--base-out", baseOut}, // no feature
	} {
		_, err := kmeta(t, nil, bad...)
		if status := exitStatus(context.Background(), err); status != exitFailure {
			t.Errorf("%v: status %d (%v), want a usage error", bad[3:], status, err)
		}
	}
}

// TestBTFDistill distills the module BTF pahole wrote without the feature
// into what it writes with it.
func TestBTFDistill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeFixture(t, dir, "vmlinux.btf", "btf/debian-6.12-cloud.btf.zst")
	mod := writeFixture(t, dir, "tun.btf", "pahole/encode/debian-6.12/tun.btf.gz")
	out, baseOut := filepath.Join(dir, "out.btf"), filepath.Join(dir, "out.base")
	if _, err := kmeta(t, nil, "btf", "distill", mod, "-B", base, "-o", out, "--base-out", baseOut); err != nil {
		t.Fatal(err)
	}
	split, _ := os.ReadFile(out)
	b, _ := os.ReadFile(baseOut)
	checkSections(t, "btf distill", split, b, "debian-6.12-tun")
	if _, err := kmeta(t, nil, "btf", "distill", mod, "-o", out, "--base-out", baseOut); err == nil {
		t.Error("no -B: no error")
	}
}

// TestBTFDumpDistilled dumps a distilled module on its vmlinux as bpftool
// 7.5 does, and on another kernel's, which it does not fit: status 1 and
// an error that names the type.
func TestBTFDumpDistilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ko := testfixtures.Path(t, "elf/distilled/debian-6.12-af_key.ko.gz")
	base := writeFixture(t, dir, "vmlinux.btf", "btf/debian-6.12-cloud.btf.zst")
	got, err := kmetaBytes(t, nil, "btf", "dump", ko, "-B", base)
	if err != nil {
		t.Fatal(err)
	}
	testfixtures.CompareLines(t, got, testfixtures.Read(t, "bpftool/distilled/debian-6.12-af_key.raw.txt.gz"))

	other := writeFixture(t, dir, "vmlinux-7.3.btf", "btf/debian-7.3-cloud.btf.zst")
	_, err = kmeta(t, nil, "btf", "dump", ko, "-B", other)
	if status := exitStatus(context.Background(), err); status != exitNotFound || !strings.Contains(err.Error(), `"mutex"`) {
		t.Errorf("on 7.3's vmlinux: status %d, %v; want 1 and an error naming mutex", status, err)
	}
}
