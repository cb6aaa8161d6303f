package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestMinShapesPeakRSS runs the real binary's btf min --types on the
// shapes of wide structs (the struct of many members, and "outer" where
// the shape has one) and checks its peak RSS against docBound: on
// 4ffd8c1, 1,000 structs of 1,000 members took 62 MB where the bound is
// 44, as min reserved string room for every member and held its output
// twice. KMETA_HEAVY=1 only, as TestShapesPeakRSS.
func TestMinShapesPeakRSS(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS of btf min on the shapes of wide structs: set KMETA_HEAVY=1")
	}
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "min.btf")
	for _, k := range append(hostile.LayoutShapes(), hostile.Wide) {
		n := 65_535 // members of the wide struct
		name := "wide"
		switch k {
		case hostile.ManyWide:
			n, name = 1000, "outer" // structs of 1,000 members
		case hostile.DistinctNamed:
			name = "outer"
		}
		path := shapeFile(t, dir, k, n)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"btf", "min", path, "--types", name, "-o", out}, {"btf", "min", path, "--types", name, "-o", out + ".o", "--endian", "big"}} {
			peak, code, stderr := peakRSS(t, timeBin, bin, append(args, "--max-input", "64M")...)
			if code != 0 {
				t.Errorf("%v: kmeta %s: status %d, %.300q", k, strings.Join(args, " "), code, stderr)
			}
			checkRun(t, k, args, peak, code, stderr, docBound(args, fi.Size(), 0))
		}
	}
}
