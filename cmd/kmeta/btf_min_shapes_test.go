package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
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

// TestMinLongNamesPeakRSS runs btf min --types on a struct of 65,535
// members with distinct 200-byte names (13.9 MB): the copy's string
// section grew from an estimate of 14 bytes a name by copies, old and new
// live together, and peaked at 53.8 MB against the bound's 47.8 (strwide,
// session 31). KMETA_HEAVY=1 only, as TestShapesPeakRSS.
func TestMinLongNamesPeakRSS(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS of btf min --types on a struct of long member names: set KMETA_HEAVY=1")
	}
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	b := builder.New()
	intID, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		t.Fatal(err)
	}
	members := make([]builder.Member, 65_535)
	pad := strings.Repeat("n", 190)
	for i := range members {
		members[i] = builder.Member{Name: fmt.Sprintf("%s%010d", pad, i), Type: intID, BitOffset: uint32(32 * i)}
	}
	if _, err := b.AddStruct("big", 4*uint32(len(members)), members); err != nil {
		t.Fatal(err)
	}
	data, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "long-names.btf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"btf", "min", path, "--types", "big", "-o", filepath.Join(dir, "min.btf")}
	peak, code, stderr := peakRSS(t, timeBin, bin, append(args, "--max-input", "64M")...)
	if code != 0 {
		t.Errorf("kmeta %s: status %d, %.300q", strings.Join(args, " "), code, stderr)
	}
	checkRun(t, stringer("long-names"), args, peak, code, stderr, readBound(int64(len(data))))
}

// stringer names a hand-made input for checkRun.
type stringer string

func (s stringer) String() string { return string(s) }
