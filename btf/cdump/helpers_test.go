package cdump_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// Header and footer that bpftool prints around the types.
const (
	wantHeader = "#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n\n" +
		"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n" +
		"#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n" +
		"#endif\n\n"
	wantFooter = "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n\n" +
		"#endif /* __VMLINUX_H__ */\n"
)

// v71 prints as Debian 12's bpftool 7.1, the oracle of the older goldens.
var v71 = cdump.Options{Compat: cdump.CompatBpftool71}

var (
	parse      = testfixtures.Spec
	hostSpec   = testfixtures.HostSpec
	debianSpec = testfixtures.DebianSpec
)

// dumpC runs Write into a buffer.
func dumpC(tb testing.TB, s *btf.Spec, opts cdump.Options) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := cdump.Write(&buf, s, opts); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// body strips bpftool's header and footer.
func body(tb testing.TB, out []byte) string {
	tb.Helper()
	s, ok := strings.CutPrefix(string(out), wantHeader)
	if !ok {
		tb.Fatalf("output does not start with the header:\n%.300s", out)
	}
	s, ok = strings.CutSuffix(s, wantFooter)
	if !ok {
		tb.Fatalf("output does not end with the footer:\n%s", lastLines(out, 8))
	}
	return s
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w []byte
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if !bytes.Equal(g, w) || i >= len(gl) || i >= len(wl) {
			lo := max(0, i-3)
			return fmt.Sprintf("first difference at line %d:\n got: %q\nwant: %q\ncontext (want):\n%s",
				i+1, g, w, bytes.Join(wl[lo:min(len(wl), i+1)], []byte("\n")))
		}
	}
	return "equal"
}

func lastLines(b []byte, n int) string {
	ls := strings.Split(string(b), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// bpftool returns the path of Debian 12's bpftool 7.1, the oracle of
// CompatBpftool71, or skips the test: "bpftool" on the PATH, if it is 7.1.
func bpftool(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("bpftool")
	if err != nil {
		tb.Skip("bpftool not installed: skipping the comparison with it")
	}
	if v := bpftoolVersion(tb, p); !strings.Contains(v, " v7.1.") {
		tb.Skipf("%s is %q, not bpftool 7.1: skipping the comparison with it", p, v)
	}
	return p
}

// bpftool75 returns the path of bpftool 7.5 (Debian 13's), the oracle of
// the default output, or skips the test: $KMETA_BPFTOOL75, or
// $KMETA_MODERN/bin/bpftool (see ../shared/fixtures/fetch-modern.sh), or
// "bpftool" on the PATH if it is 7.5.
func bpftool75(tb testing.TB) string {
	tb.Helper()
	p := os.Getenv("KMETA_BPFTOOL75")
	if p == "" && os.Getenv("KMETA_MODERN") != "" {
		p = filepath.Join(os.Getenv("KMETA_MODERN"), "bin", "bpftool")
	}
	if p == "" {
		var err error
		if p, err = exec.LookPath("bpftool"); err != nil {
			tb.Skip("no bpftool 7.5 (set KMETA_BPFTOOL75 or KMETA_MODERN): skipping the comparison with it")
		}
	}
	if v := bpftoolVersion(tb, p); !strings.Contains(v, " v7.5.") {
		tb.Skipf("%s is %q, not bpftool 7.5 (set KMETA_BPFTOOL75 or KMETA_MODERN): skipping the comparison with it", p, v)
	}
	return p
}

// bpftoolVersion returns the first line of "bpftool version".
func bpftoolVersion(tb testing.TB, bin string) string {
	tb.Helper()
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		tb.Skipf("%s version: %v", bin, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first
}

// bpftoolDump runs "bpftool btf dump file FILE format c" of bpftool 7.1 on
// raw BTF (and with -B on a base file, if base is not nil).
func bpftoolDump(tb testing.TB, raw, base []byte) ([]byte, error) {
	tb.Helper()
	return runBpftool(tb, bpftool(tb), raw, base)
}

// runBpftool runs "bin btf dump file FILE format c ARGS..." on raw BTF
// (and with -B on a base file, if base is not nil).
func runBpftool(tb testing.TB, bin string, raw, base []byte, extra ...string) ([]byte, error) {
	tb.Helper()
	dir := tb.TempDir()
	file := filepath.Join(dir, "t.btf")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		tb.Fatal(err)
	}
	var args []string
	if base != nil {
		bf := filepath.Join(dir, "base.btf")
		if err := os.WriteFile(bf, base, 0o644); err != nil {
			tb.Fatal(err)
		}
		args = append(args, "-B", bf)
	}
	args = append(args, "btf", "dump", "file", file, "format", "c")
	args = append(args, extra...)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("bpftool: %v: %s", err, stderr.String())
	}
	return out, nil
}

// clang returns the path of clang, or skips the test.
func clang(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("clang")
	if err != nil {
		tb.Skip("clang not installed: skipping the compile test (CI installs clang)")
	}
	return p
}

// compile checks that clang -target bpf compiles a file that includes the
// header.
func compile(tb testing.TB, header []byte, extra string) {
	tb.Helper()
	bin := clang(tb)
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "vmlinux.h"), header, 0o644); err != nil {
		tb.Fatal(err)
	}
	src := "#include \"vmlinux.h\"\n" + extra + "\nint dummy;\n"
	if err := os.WriteFile(filepath.Join(dir, "prog.c"), []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "-target", "bpf", "-O2", "-g", "-c", "prog.c", "-o", "prog.o")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("clang -target bpf -c failed: %v\n%.4000s", err, out)
	}
}
