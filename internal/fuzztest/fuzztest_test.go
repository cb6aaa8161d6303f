package fuzztest

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Run(m) }

// TestBound checks that the bound is set in this package's run, as Run
// sets it in every package with a fuzz test.
func TestBound(t *testing.T) {
	f := flag.Lookup(minimizeFlag)
	if f == nil {
		t.Fatalf("no -%s flag", minimizeFlag)
	}
	if got := f.Value.String(); got != MinimizeRuns {
		t.Skipf("-%s=%s given on the command line", minimizeFlag, got)
	}
}

var fuzzFunc = regexp.MustCompile(`(?m)^func Fuzz\w*\(f \*testing\.F\)`)

// TestEveryFuzzPackage checks that every package of the module with a
// fuzz test has a TestMain that calls Run, so that no fuzz run stalls in
// minimization.
func TestEveryFuzzPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	fuzz, bounded := map[string]bool{}, map[string]bool{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if e.IsDir() && p != root {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module (bench/)
			}
		}
		if e.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dir := filepath.Dir(p)
		fuzz[dir] = fuzz[dir] || fuzzFunc.Match(b)
		bounded[dir] = bounded[dir] || strings.Contains(string(b), "fuzztest.Run(m)")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for dir, ok := range fuzz {
		if !ok {
			continue
		}
		n++
		if !bounded[dir] {
			t.Errorf("%s has a fuzz test but no TestMain calling fuzztest.Run", dir)
		}
	}
	if n == 0 {
		t.Fatal("found no fuzz test")
	}
}
