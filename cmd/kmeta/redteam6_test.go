package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The sixth hostile campaign of issue 37: what wraps BTF (kernel images,
// packages, the .BTF.ext of BPF objects) through the real binary.

// TestCoreManyRelosPeakRSS runs btf core (text and --json) and btf min
// --obj on a BPF object of 1,050,004 CO-RE relocation records
// (hostile.RepeatCORERelos of prog.bpf.o: its first section's 7 records
// 150,000 times, 16.8 MB of .BTF.ext), against Debian 6.1's vmlinux BTF
// (4.1 MB). Both are reading commands: 2 S + 20 MB, S the larger input,
// here the object.
func TestCoreManyRelosPeakRSS(t *testing.T) {
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS on 1,050,004 CO-RE relocations: set KMETA_HEAVY=1")
	}
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	obj, err := hostile.RepeatCORERelos(testfixtures.Read(t, "elf/prog.bpf.o.gz"), 150_000)
	if err != nil {
		t.Fatal(err)
	}
	target := testfixtures.Read(t, "btf/debian-6.1.btf.gz")
	objPath := writeFile(t, dir, "relos.o", obj)
	targetPath := writeFile(t, dir, "vmlinux.btf", target)
	bound := readBound(int64(max(len(target), len(obj))))
	for _, args := range [][]string{
		{"btf", "core", objPath, "--target", targetPath},
		{"btf", "core", objPath, "--target", targetPath, "--json"},
		{"btf", "min", targetPath, "--obj", objPath, "-o", dir + "/min.btf"},
	} {
		peak, code, stderr := peakRSS(t, timeBin, bin, args...)
		t.Logf("%v: %d MB (bound %d MB), status %d %s", args[:2], peak>>20, bound>>20, code, firstLine(stderr))
		if code != 0 || peak > bound {
			t.Errorf("%v: status %d, peak %d MB over %d MB", args, code, peak>>20, bound>>20)
		}
	}
}

// TestRepeatCORERelos checks the generator: the object it makes has the
// records it says, as btf core reads them.
func TestRepeatCORERelos(t *testing.T) {
	obj, err := hostile.RepeatCORERelos(testfixtures.Read(t, "elf/prog.bpf.o.gz"), 3)
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "relos.o", obj)
	target := writeFile(t, t.TempDir(), "t.btf", testfixtures.Read(t, "btf/debian-6.1.btf.gz"))
	out, stderr, err := runKmeta(t, "btf", "core", path, "--target", target)
	if lines := strings.Count(out, "\n"); err != nil && !errors.Is(err, errQuiet) || lines != 3*7+4 {
		t.Errorf("%v, %d relocations, want %d: %s", err, lines, 3*7+4, stderr)
	}
}
