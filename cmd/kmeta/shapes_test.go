package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The hostile shapes of issue 37, each as the issue describes it, through
// the commands that failed on them.

// shapeFile puts the shape k of size n into dir (built once per test
// binary: sharedInput) and returns its path.
func shapeFile(tb testing.TB, dir string, k hostile.Shape, n int) string {
	tb.Helper()
	return sharedInput(tb, dir, fmt.Sprintf("%v-%d.btf", k, n), func() ([]byte, error) { return hostile.Build(k, n) })
}

// TestSelfEmbeddingLayout: a struct that holds itself is refused at once,
// in one line naming it, by layout and layout --json (items 1 and 3: a
// stack overflow, and 2 GB before "type graph too complex").
func TestSelfEmbeddingLayout(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []hostile.Shape{hostile.SelfEmbed, hostile.SelfEmbedTwo} {
		path := shapeFile(t, dir, k, 0)
		for _, args := range [][]string{{"btf", "layout", path}, {"btf", "layout", "--json", path}, {"btf", "layout", "outer", path}} {
			_, err := kmeta(t, nil, args...)
			if !errors.Is(err, layout.ErrTooComplex) || !strings.Contains(err.Error(), "STRUCT '(anon)' [2] contains itself") {
				t.Errorf("%v: %v, want the anonymous struct named, and %v", args, err, layout.ErrTooComplex)
			}
		}
	}
}

// TestDeepNestingLayoutJSON: --json and the text print every level of
// 300 nested anonymous records, as pahole does (it stopped at 64); past
// 4,096 levels (pahole dies of SIGSEGV past some 6,000), and --json past
// 1,024, both are refused in one line naming the struct, before anything
// is written (item 5: 634-805 MB on 3,000 levels).
func TestDeepNestingLayoutJSON(t *testing.T) {
	dir := t.TempDir()
	path := shapeFile(t, dir, hostile.NestedRecords, 300)
	out, err := kmeta(t, nil, "btf", "layout", "--json", path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, `"members"`); n != 301 {
		t.Errorf("%d levels of members, want 301", n)
	}
	path = shapeFile(t, dir, hostile.NestedRecords, 5000)
	for _, args := range [][]string{{"btf", "layout", path}, {"btf", "layout", "--json", path}} {
		out, err := kmeta(t, nil, args...)
		if !errors.Is(err, layout.ErrTooComplex) || !strings.Contains(err.Error(), "STRUCT 'outer'") || out != "" {
			t.Errorf("%v: %v after %d bytes, want %v naming outer, nothing printed", args, err, len(out), layout.ErrTooComplex)
		}
	}
}

// TestLongChains: a chain of 100,000 pointers, typedefs, qualifiers or
// arrays is refused by dump --format c and diff, in one line naming a type
// of the chain (item 6; their memory is TestShapesPeakRSS's).
func TestLongChains(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []hostile.Shape{hostile.PointerChain, hostile.TypedefChain, hostile.ModifierChain, hostile.ArrayChain} {
		path := shapeFile(t, dir, k, 100_000)
		_, err := kmeta(t, nil, "btf", "dump", "--format", "c", path)
		if !errors.Is(err, cdump.ErrTooDeep) || !strings.Contains(err.Error(), "] ") && !strings.Contains(err.Error(), "]:") {
			t.Errorf("%v: dump --format c: %v, want %v naming a type", k, err, cdump.ErrTooDeep)
		}
	}
}

// TestKsymMaxInput: ksym enforces --max-input as the btf commands do, on
// a file (refused by its size, before reading) and on standard input
// (item 8), and watch on its first load (its reloads: kallsyms/live's
// TestReloadMaxSize).
func TestKsymMaxInput(t *testing.T) {
	var text bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&text, "ffffffff8100%04x T sym_%d\n", i*16, i)
	}
	path := writeFile(t, t.TempDir(), "kallsyms", text.Bytes())
	for _, tc := range []struct {
		stdin []byte
		args  []string
	}{
		{nil, []string{"ksym", "stats", "--kallsyms", path, "--max-input", "100"}},
		{text.Bytes(), []string{"ksym", "stats", "--kallsyms", "-", "--max-input", "100"}},
		{text.Bytes(), []string{"ksym", "name", "sym_1", "--kallsyms", "-", "--max-input", "1K"}},
		{nil, []string{"ksym", "watch", "--kallsyms", path, "--sysfs", t.TempDir(), "--max-input", "100"}},
	} {
		_, err := kmeta(t, tc.stdin, tc.args...)
		// A file's size is known, and said; standard input's is not.
		want := path + " is " + input.FormatSize(int64(text.Len())) + ", more than the limit of"
		if tc.stdin != nil {
			want = "stdin is larger than the limit of"
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--max-input") {
			t.Errorf("%v: %v, want the input limit's error", tc.args, err)
		}
	}
	if _, err := kmeta(t, nil, "ksym", "name", "sym_999", "--kallsyms", path, "--max-input", strconv.Itoa(text.Len())); err != nil {
		t.Errorf("input of exactly the limit: %v", err)
	}
}

// readBound is the README's memory rule for the reading commands: twice
// the input plus 20 MB.
func readBound(input int64) int64 { return 2*input + 20<<20 }

// shapeStats is what the README's memory rules take from raw BTF besides
// its size: its types. BTF that does not parse counts a type for every
// 12 bytes (the smallest record).
func shapeStats(data []byte) int {
	s, err := btf.Parse(data, btf.Options{})
	if err != nil {
		return len(data) / 12
	}
	defer s.Close()
	return s.NumTypes()
}

// docBound is the README's memory rule ("Memory: one rule per command")
// for kmeta args on raw BTF of n bytes in all, with types types; -1 for a
// command it has no rule for.
func docBound(args []string, n int64, types int) int64 {
	switch {
	case args[0] == "ksym":
		return readBound(n)
	case args[1] == "copy":
		// The records stream from the input to the output; what is held
		// is the input as read and the output's string table.
		return readBound(n)
	case args[1] == "dedup":
		return 2*n + 20<<20 + 64*int64(types)
	case slices.Contains([]string{"dump", "find", "layout", "min", "core", "diff"}, args[1]):
		return readBound(n)
	}
	return -1
}

// peakRSS runs bin with args under GNU time and returns the child's peak
// RSS in bytes, its exit status and its standard error. (The rusage of a
// child that exec.Command starts counts the test process's own RSS at the
// exec, since Linux merges the old address space's high-water mark into
// the new one's: GNU time, a small process, forks the child itself.)
func peakRSS(tb testing.TB, timeBin, bin string, args ...string) (int64, int, string) {
	tb.Helper()
	rep := filepath.Join(tb.TempDir(), "rss")
	cmd := exec.Command(timeBin, append([]string{"-f", "%M", "-o", rep, bin}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	peak := readRSS(rep)
	if peak < 0 {
		tb.Fatalf("no peak RSS from GNU time in %s", rep)
	}
	return peak, code, stderr.String()
}

// buildRealKmeta builds the kmeta binary as the README installs it, for
// the peak RSS checks: the test binary that buildKmeta links as kmeta
// carries the tests too, a few MB more of RSS than the rules are for.
func buildRealKmeta(tb testing.TB) string {
	tb.Helper()
	realKmeta.once.Do(func() {
		dir, err := os.MkdirTemp("", "kmeta-real-bin")
		if err != nil {
			realKmeta.err = err
			return
		}
		realKmeta.path = filepath.Join(dir, "kmeta")
		out, err := exec.Command("go", "build", "-tags", "netgo,osusergo", "-o", realKmeta.path, ".").CombinedOutput()
		if err != nil {
			realKmeta.err = fmt.Errorf("%v: %s", err, out)
		}
	})
	if realKmeta.err != nil {
		tb.Skipf("cannot build kmeta: %v", realKmeta.err)
	}
	return realKmeta.path
}

// realKmeta is the binary buildRealKmeta built (left in the temporary
// directory, as a few MB).
var realKmeta struct {
	once sync.Once
	path string
	err  error
}

// gnuTime returns the path of GNU time, or skips.
func gnuTime(tb testing.TB) string {
	tb.Helper()
	p := lookGNUTime()
	if p == "" {
		tb.Skip("peak RSS: needs GNU time (/usr/bin/time, Debian's time package)")
	}
	return p
}

// TestShapesPeakRSS runs the real binary on every hostile shape, through
// every reading command and the writers copy and dedup, and checks its
// peak RSS against docBound (items
// 3, 5, 6, 7: 2 GB, 805 MB, 290 MB and 280 MB on 9d54fd8).
//
// It runs about 90 commands, so only with KMETA_HEAVY=1 (.ci/run sets it).
func TestShapesPeakRSS(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS of every reading command on the hostile shapes: set KMETA_HEAVY=1")
	}
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	sizes := map[hostile.Shape]int{
		hostile.SelfEmbed: 0, hostile.SelfEmbedTwo: 0, hostile.NestedRecords: 3000,
		hostile.PointerChain: 100_000, hostile.TypedefChain: 100_000, hostile.ModifierChain: 100_000,
		hostile.ArrayChain: 100_000, hostile.Wide: 20_000, hostile.Enums: 40,
		hostile.Pointers: 300_000, hostile.Typedefs: 300_000, hostile.TinyStructs: 300_000, hostile.EmptyStructs: 300_000,
	}
	for _, k := range hostile.All() {
		path := shapeFile(t, dir, k, sizes[k])
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(len(data))
		types := shapeStats(data)
		cmds := [][]string{
			{"btf", "dump", path}, {"btf", "dump", "--format", "c", path}, {"btf", "dump", "--json", path},
			{"btf", "layout", path}, {"btf", "layout", "--json", path},
			{"btf", "find", "outer", path}, {"btf", "min", path, "--types", "outer", "-o", filepath.Join(dir, "min.btf")},
			{"btf", "copy", path, "-o", filepath.Join(dir, "copy.btf")}, {"btf", "dedup", path, "-o", filepath.Join(dir, "dedup.btf")},
		}
		for _, args := range cmds {
			peak, code, stderr := peakRSS(t, timeBin, bin, append(args, "--max-input", "64M")...)
			checkRun(t, k, args, peak, code, stderr, docBound(args, n, types))
		}
		// diff reads two inputs: this one twice, or with the smallest shape.
		small := shapeFile(t, dir, hostile.SelfEmbed, 0)
		for _, args := range [][]string{{"btf", "diff", path, path}, {"btf", "diff", "--json", small, path}, {"btf", "diff", path, path, "--types", "outer,chain"}} {
			peak, code, stderr := peakRSS(t, timeBin, bin, args...)
			checkRun(t, k, args, peak, code, stderr, docBound(args, 2*n, 2*types))
		}
	}
	// Every struct changed: "struct s0 { int x; }" against "struct s0 {}".
	tiny, empty := shapeFile(t, dir, hostile.TinyStructs, sizes[hostile.TinyStructs]), shapeFile(t, dir, hostile.EmptyStructs, sizes[hostile.EmptyStructs])
	n := fileSize(t, tiny) + fileSize(t, empty)
	for _, args := range [][]string{{"btf", "diff", tiny, empty}, {"btf", "diff", "--json", empty, tiny}} {
		peak, code, stderr := peakRSS(t, timeBin, bin, args...)
		checkRun(t, hostile.TinyStructs, args, peak, code, stderr, docBound(args, n, 0))
	}
	diffPairsPeakRSS(t, timeBin, bin, dir)
}

// diffPairsPeakRSS runs diff, text and --json, on each hostile pair of
// 300,000 types that all changed, and a file against an empty one both
// ways, and checks the peak RSS against docBound.
func diffPairsPeakRSS(t *testing.T, timeBin, bin, dir string) {
	t.Helper()
	run := func(what fmt.Stringer, old, new string) {
		n := fileSize(t, old) + fileSize(t, new)
		for _, args := range [][]string{{"btf", "diff", old, new}, {"btf", "diff", "--json", old, new}} {
			peak, code, stderr := peakRSS(t, timeBin, bin, args...)
			checkRun(t, what, args, peak, code, stderr, docBound(args, n, 0))
		}
	}
	for _, p := range hostile.Pairs() {
		old, new, err := hostile.BuildPair(p, 300_000)
		if err != nil {
			t.Fatal(err)
		}
		run(p, writeFile(t, dir, p.String()+"-old.btf", old), writeFile(t, dir, p.String()+"-new.btf", new))
	}
	e, err := hostile.Empty()
	if err != nil {
		t.Fatal(err)
	}
	empty := writeFile(t, dir, "empty.btf", e)
	typedefs := shapeFile(t, dir, hostile.Typedefs, 300_000)
	run(hostile.Typedefs, empty, typedefs)
	run(hostile.Typedefs, typedefs, empty)
}

// fileSize returns the size of the file at path.
func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// TestLayoutShapesPeakRSS runs the real binary's btf layout (plain,
// --json, and of one name) on the shapes whose structs hold many types of
// their own, anonymous or named, and checks its peak RSS against docBound:
// a struct of 65,535 members each of its own anonymous union took 37 MB
// where the bound is 27.5 on 4ffd8c1, and 1,000 structs of 1,000 members
// were refused as too complex. KMETA_HEAVY=1 only, as TestShapesPeakRSS.
func TestLayoutShapesPeakRSS(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS of btf layout on the shapes of wide structs: set KMETA_HEAVY=1")
	}
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	for _, k := range append(hostile.LayoutShapes(), hostile.Wide) {
		n := 65_535 // members of the wide struct
		if k == hostile.ManyWide {
			n = 1000 // structs of 1,000 members
		}
		path := shapeFile(t, dir, k, n)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		name := "wide" // the struct of many members
		if k == hostile.ManyWide || k == hostile.DistinctNamed {
			name = "outer"
		}
		for _, args := range [][]string{{"btf", "layout", path}, {"btf", "layout", "--json", path}, {"btf", "layout", name, path}} {
			peak, code, stderr := peakRSS(t, timeBin, bin, args...)
			if code != 0 {
				t.Errorf("%v: kmeta %s: status %d, %.300q", k, strings.Join(args, " "), code, stderr)
			}
			checkRun(t, k, args, peak, code, stderr, docBound(args, fi.Size(), 0))
		}
	}
}

// checkRun checks one run of TestShapesPeakRSS: a status of 0, 1 or 2, a
// one-line error, and a peak RSS within bound.
func checkRun(t *testing.T, k fmt.Stringer, args []string, peak int64, code int, stderr string, bound int64) {
	t.Helper()
	t.Logf("%v: %s: %d MB (bound %d MB), status %d %s", k, strings.Join(args[1:2], " "), peak>>20, bound>>20, code, firstLine(stderr))
	if code > 2 || code < 0 || code == 2 && (strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "kmeta: ")) {
		t.Errorf("%v: kmeta %s: status %d, %.300q", k, strings.Join(args, " "), code, stderr)
	}
	if peak > bound {
		t.Errorf("%v: kmeta %s: peak RSS %d MB, over the bound of %d MB", k, strings.Join(args, " "), peak>>20, bound>>20)
	}
}
