package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The fourth hostile campaign of issue 37: inputs whose cost is driven by
// their names (hostile.Probe) and BTF in hostile ELF files
// (hostile.BuildELF), through the real binary.

// TestJSONArray: jsonArray writes what writeJSON writes for the slice.
func TestJSONArray(t *testing.T) {
	for _, vs := range [][]findResult{
		{},
		{{File: "a<&>"}},
		{{File: "a"}, {File: "b"}, {File: "c"}},
	} {
		var want, got bytes.Buffer
		if err := writeJSON(&want, vs); err != nil {
			t.Fatal(err)
		}
		a := newJSONArray(&got)
		for _, v := range vs {
			if err := a.add(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d elements:\n%s\nwant\n%s", len(vs), got.String(), want.String())
		}
	}
}

// probeFile puts the probe p of size n into dir (built once per test
// binary: sharedInput) and returns its path.
func probeFile(tb testing.TB, dir string, p hostile.Probe, n int) string {
	tb.Helper()
	return sharedInput(tb, dir, fmt.Sprintf("%v-%d.btf", p, n), func() ([]byte, error) { return hostile.BuildProbe(p, n) })
}

// TestFindSharedName: btf find prints every type of a name that all the
// input's named types share, in plain and JSON forms, one for each.
func TestFindSharedName(t *testing.T) {
	path := probeFile(t, t.TempDir(), hostile.SharedName, 1000)
	out, err := kmeta(t, nil, "btf", "find", "x", path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n != 4000 {
		t.Errorf("btf find x: %d lines, want 4000", n)
	}
	out, err = kmeta(t, nil, "btf", "find", "--json", "x", path, path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, `"file": `); n != 6000 || !strings.HasPrefix(out, "[\n  {\n") || !strings.HasSuffix(out, "  }\n]\n") {
		t.Errorf("btf find --json x: %d records, %q...%q", n, out[:min(len(out), 20)], out[max(0, len(out)-20):])
	}
}

// TestFindSharedNamePeakRSS (cmd/kmeta btf find): every named type of
// 20 MB of BTF named "x", 900,000 matches. find held them all (and
// their JSON records): 68 MB against a rule of 58 MB, 497 MB with --json
// (at 61 MB, 171 and 1,585 MB against 136). It now prints each as it is
// found.
func TestFindSharedNamePeakRSS(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS of btf find on 900,000 matches: set KMETA_HEAVY=1")
	}
	dir := t.TempDir()
	path := probeFile(t, dir, hostile.SharedName, 300_000)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"btf", "find", "x", path}, {"btf", "find", "--json", "x", path}} {
		peak, code, stderr := heavyRun(t, append(args, "--max-input", "64M")...)
		t.Logf("%v: %d MB (bound %d MB)", args[:len(args)-2], peak>>20, readBound(fi.Size())>>20)
		if bound := readBound(fi.Size()); code != 0 || peak > bound {
			t.Errorf("%v: status %d %s, peak %d MB, bound %d MB", args, code, firstLine(stderr), peak>>20, bound>>20)
		}
	}
}

// TestELFSharedNamesPeakRSS (btf.Open: its ELF reading, debug/elf): an
// ELF file of 100,000 empty sections whose names all point at one string
// of 4 KB, and 12 KB of .BTF, 6.4 MB. debug/elf copies the name for each
// section: btf dump peaks at 446 MB in 3.4 s of CPU (bpftool 7.1 and 7.5:
// 28 MB, 0.22 s); a million sections of 8 KB names, 64 MB, ask for 8 GB,
// and under a ulimit the Go runtime's "fatal error: out of memory"
// reaches the terminal. btf.Open reads the section headers in place
// (internal/elfscan); bpfelf and dwarf2btf refuse such files before
// debug/elf reads them (elfscan.Check).
func TestELFSharedNamesPeakRSS(t *testing.T) {
	needHeavy(t)
	raw, err := hostile.Build(hostile.Pointers, 1000)
	if err != nil {
		t.Fatal(err)
	}
	data := hostile.BuildELF(raw, hostile.ELFShape{Sections: 100_000, NameLen: 4096})
	path := writeFile(t, t.TempDir(), "names.o", data)
	for _, cmd := range [][]string{{"btf", "dump", path}, {"btf", "find", "int", path}, {"btf", "core", path, "--target", path}} {
		peak, code, stderr := heavyRun(t, cmd...)
		if bound := readBound(int64(len(data))); code > 2 || peak > bound || strings.Contains(stderr, "runtime") {
			t.Errorf("%v: status %d %s, peak %d MB, bound %d MB", cmd[:2], code, firstLine(stderr), peak>>20, bound>>20)
		}
	}
}

// TestSharedNamePeakRSS: hostile.SharedName of 300,000 (every named type
// of 20 MB of BTF named "x", 1.2 million types) through layout, diff and
// min --types x, each within the README's rule; min refuses the name,
// which reaches more types than BTF holds, before it gathers them.
func TestSharedNamePeakRSS(t *testing.T) {
	needHeavy(t)
	dir := t.TempDir()
	path := probeFile(t, dir, hostile.SharedName, 300_000)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"btf", "layout", path},
		{"btf", "layout", "x", path},
		{"btf", "diff", path, path},
		{"btf", "min", path, "--types", "x", "-o", filepath.Join(dir, "min.btf")},
	} {
		peak, code, stderr := heavyRun(t, append(args, "--max-input", "64M")...)
		bound := readBound(fi.Size())
		if args[1] == "diff" {
			bound = readBound(2 * fi.Size())
		}
		if code > 2 || peak > bound {
			t.Errorf("%v: status %d %s, peak %d MB, bound %d MB", args[:2], code, firstLine(stderr), peak>>20, bound>>20)
		}
		if args[1] == "min" && (code != 2 || !strings.Contains(stderr, `type "x" reaches`)) {
			t.Errorf("btf min --types x: status %d %q, want 2 and the refusal naming x", code, firstLine(stderr))
		}
	}
}

// TestKsymDescendingPeakRSS (kallsyms): a million vmlinux symbols whose
// addresses descend, 28.9 MB of text, within ksym's rule (75 MB): they
// are sorted as an index of positions, not copied (kallsyms/BENCH.md).
func TestKsymDescendingPeakRSS(t *testing.T) {
	needHeavy(t)
	var text bytes.Buffer
	const n = 1_000_000
	for i := range n {
		fmt.Fprintf(&text, "%016x T sym%d\n", uint64(0xffffffff81000000)+uint64(n-i)*16, i)
	}
	path := writeFile(t, t.TempDir(), "kallsyms", text.Bytes())
	peak, code, stderr := heavyRun(t, "ksym", "stats", "--kallsyms", path, "--sysfs", t.TempDir(), "--max-input", "64M")
	if bound := readBound(int64(text.Len())); code != 0 || peak > bound {
		t.Errorf("status %d %s, peak %d MB, bound %d MB", code, firstLine(stderr), peak>>20, bound>>20)
	}
}
