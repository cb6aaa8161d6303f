// Package fuzztest bounds the work of Go's fuzzing engine per new input,
// for the TestMain of every package that has a fuzz test.
//
// The engine minimizes every input that finds new coverage before it
// fuzzes on, for up to a minute by default (-test.fuzzminimizetime), and
// reports no executions meanwhile. Each candidate it tries costs a run of
// the target and a snapshot of the coverage counters of the whole test
// binary, and its passes over an input are quadratic in its length: an
// input of a few kilobytes (every real BTF or ELF seed) never finishes
// within the minute, so a fuzz run of a minute stalled at 0 execs/s
// after its first seconds (golang/go#48820). Bounded by a count of runs,
// the work per new input is bounded whatever the input.
package fuzztest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MinimizeRuns is the default of -test.fuzzminimizetime set by Run: at
// most this many runs of the target to minimize each new input.
const MinimizeRuns = "100x"

const minimizeFlag = "test.fuzzminimizetime"

// Run parses the test flags, bounds the minimization to MinimizeRuns
// unless the command line sets -test.fuzzminimizetime, runs m and exits
// with its status. A package's TestMain calls it.
func Run(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if err := Bound(); err != nil {
		panic(err) // the testing package registers the flag
	}
	return m.Run()
}

// Bound sets -test.fuzzminimizetime to MinimizeRuns unless the command
// line set it; flag.Parse must have run.
func Bound() error {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == minimizeFlag })
	if given {
		return nil
	}
	return flag.Set(minimizeFlag, MinimizeRuns)
}

// CheckError fails tb if err, returned by an exported function of the
// package named pkg, breaks kmeta's error convention: its message starts
// with "PKG: ", and says it once. A nil err passes.
func CheckError(tb testing.TB, pkg string, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	msg, prefix := err.Error(), pkg+": "
	if !strings.HasPrefix(msg, prefix) || strings.Count(msg, prefix) != 1 {
		tb.Errorf("error %q: want it to start with %q, once", msg, prefix)
	}
}

// BadFiles makes files that no reader of kmeta accepts, in a temporary
// directory of tb, and returns their paths by what they are: "missing" (no
// such file), "directory", "empty", and "text" (a line of text).
func BadFiles(tb testing.TB) map[string]string {
	tb.Helper()
	dir := tb.TempDir()
	files := map[string]string{
		"missing":   filepath.Join(dir, "missing"),
		"directory": dir,
		"empty":     filepath.Join(dir, "empty"),
		"text":      filepath.Join(dir, "text"),
	}
	for name, data := range map[string]string{"empty": "", "text": "this is not a kernel, nor BTF, nor ELF\n"} {
		if err := os.WriteFile(files[name], []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return files
}

// CheckFiles calls open on each file of BadFiles: it must fail on all but
// the empty one (which some readers accept), and every error must pass
// CheckError for pkg.
func CheckFiles(tb testing.TB, pkg string, open func(path string) error) {
	tb.Helper()
	for what, path := range BadFiles(tb) {
		err := open(path)
		if err == nil && what != "empty" {
			tb.Errorf("%s: %s file accepted", pkg, what)
		}
		CheckError(tb, pkg, err)
	}
}
