package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestReadOnlyMapping(t *testing.T) {
	const exe = "/usr/bin/kmeta"
	for _, tc := range []struct {
		line   string
		lo, hi uintptr
		ok     bool
	}{
		{"00400000-0081d000 r-xp 00000000 fe:00 10512361    /usr/bin/kmeta\n", 0x400000, 0x81d000, true},
		{"0081d000-00ccd000 r--p 0041d000 fe:00 10512361    /usr/bin/kmeta", 0x81d000, 0xccd000, true},
		{"00ccd000-00d07000 rw-p 008cd000 fe:00 10512361    /usr/bin/kmeta", 0, 0, false},
		{"7f47aea00000-7f47aedec000 r--p 00000000 fe:00 10519021   /tmp/v.btf", 0, 0, false},
		{"00d07000-02d55000 rw-p 00000000 00:00 0 ", 0, 0, false},
		{"00400000-0081d000 r-xp 00000000 fe:00 1   /usr/bin/kmeta (deleted)", 0, 0, false},
		{"0081d000-0040000 r--p 0 fe:00 1 /usr/bin/kmeta", 0, 0, false},
		{"zz-0081d000 r--p 0 fe:00 1 /usr/bin/kmeta", 0, 0, false},
	} {
		lo, hi, ok := readOnlyMapping([]byte(tc.line), exe)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("%q: got %#x-%#x %v, want %#x-%#x %v", tc.line, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

// TestReleaseStartupPages runs the real binary's writers, which release
// its read-only pages once their flags are parsed (a static build: the
// release is not made in a dynamically linked one), and checks that they
// write what the same commands write in process, without the release.
// It builds the binary, so only with KMETA_HEAVY=1 (.ci/run sets it),
// as the other tests of the real binary.
func TestReleaseStartupPages(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("the real binary's writers after releasing its pages: set KMETA_HEAVY=1")
	}
	bin := buildRealKmeta(t)
	if !unrelocated(bin) {
		t.Skipf("%s is dynamically linked: it releases nothing", bin)
	}
	vm := testfixtures.File(t, testfixtures.DebianVmlinux)
	dir := t.TempDir()
	for _, cmd := range [][]string{{"btf", "copy"}, {"btf", "dedup"}} {
		out, want := filepath.Join(dir, "out.btf"), filepath.Join(dir, "want.btf")
		if b, err := exec.Command(bin, append(cmd, vm, "-o", out)...).CombinedOutput(); err != nil {
			t.Fatalf("kmeta %v: %v: %s", cmd, err, b)
		}
		var errOut bytes.Buffer
		if err := run(t.Context(), append(cmd, vm, "-o", want), nil, io.Discard, &errOut); err != nil {
			t.Fatalf("%v in process: %v: %s", cmd, err, errOut.String())
		}
		if !bytes.Equal(readFile(t, out), readFile(t, want)) {
			t.Errorf("kmeta %v: the real binary's output differs from the output in process", cmd)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
