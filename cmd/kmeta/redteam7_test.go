package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The seventh hostile campaign of issue 37: the shapes of the earlier
// ones reached through other routes and mixed (hostile.Twist,
// hostile.DWARFCycle), through every BTF command of the real binary.

// rt7Sizes are the sizes of each twist the campaign writes: around each
// command's refusal depth for the nesting, and just under and over 64 MiB
// (the --max-input the campaign sets) for the wide records.
var rt7Sizes = map[hostile.Twist][]int{
	hostile.SelfArray:      {2, 65535},
	hostile.SelfWrapped:    {1, 100_000},
	hostile.MutualRing:     {1, 2, 3, 7, 100_000},
	hostile.DeepMixed:      {63, 64, 65, 511, 512, 513, 2047, 2048, 2049, 2050, 65535, 65536, 65537, 300_000},
	hostile.ModifierCycle:  {7, 100_000},
	hostile.QualifierCycle: {5, 100_000},
	hostile.SelfProtos:     {1, 40, 127, 128},
	hostile.SameVarSecs:    {1, 85, 86},
	hostile.MemberTags:     {1, 1_000_000},
	hostile.DeepAnon:       {63, 64, 65, 2047, 2048, 2049, 65536, 300_000},
	hostile.SameEnum64s:    {2, 85, 86},
}

// TestRedteam7Write writes the campaign's inputs into the directory
// KMETA_RT7_OUT names: twists as NAME-N.btf, split BTF on the smaller of
// them as split-NAME-N.btf, DWARF rings as dwarf-ROUTE-N.o.
func TestRedteam7Write(t *testing.T) {
	dir := os.Getenv("KMETA_RT7_OUT")
	if dir == "" {
		t.Skip("writes the seventh campaign's inputs: set KMETA_RT7_OUT=DIR")
	}
	for k, sizes := range rt7Sizes {
		for _, n := range sizes {
			raw, err := hostile.BuildTwist(k, n)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%v-%d.btf", k, n)
			writeFile(t, dir, name, raw)
			if len(raw) > 8<<20 {
				continue
			}
			split, err := hostile.SplitOn(raw, 100_000)
			if err != nil {
				t.Logf("split on %s: %v", name, err)
				continue
			}
			writeFile(t, dir, "split-"+name, split)
		}
	}
	for _, c := range hostile.DWARFCycles() {
		for _, n := range []int{1, 3, 100_000} {
			writeFile(t, dir, fmt.Sprintf("dwarf-%v-%d.o", c, n), hostile.BuildDWARFCycle(c, n))
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*"))
	t.Logf("%d files in %s", len(matches), dir)
}
