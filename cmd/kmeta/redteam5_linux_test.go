package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The fifth hostile campaign of issue 37: types that collide in every
// shallow field a hash looks at (hostile.Collision), CO-RE relocations on
// every member of a wide struct, and hand-made DWARF (hostile.DWARF).

// collisionFile writes the collision c of size n into dir and returns its
// path and size.
func collisionFile(t *testing.T, dir string, c hostile.Collision, n int) (string, int64) {
	t.Helper()
	b, err := hostile.BuildCollision(c, n)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, fmt.Sprintf("%v-%d.btf", c, n), b), int64(len(b))
}

// TestCollisionsPeakRSS: every reading command and copy on 3,000 types of
// each collision stay within their rule (they do on 0a03de7, as on 10,000,
// in under a second each), and dedup on 1,000 of them.
func TestCollisionsPeakRSS(t *testing.T) {
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("the real binary on the collisions: set KMETA_HEAVY=1")
	}
	timeBin, bin, dir := gnuTime(t), buildRealKmeta(t), t.TempDir()
	for _, c := range hostile.Collisions() {
		path, size := collisionFile(t, dir, c, 3_000)
		small, _ := collisionFile(t, dir, c, 1_000)
		out := filepath.Join(dir, "out.btf")
		for _, args := range [][]string{
			{"btf", "dump", path}, {"btf", "dump", "--json", path}, {"btf", "dump", "--format", "c", path},
			{"btf", "layout", path}, {"btf", "layout", "--json", path}, {"btf", "find", "s", path},
			{"btf", "min", "--types", "e", path, "-o", out}, {"btf", "copy", path, "-o", out},
			{"btf", "diff", path, path}, {"btf", "dedup", small, "-o", out},
		} {
			n, types := size, 0
			switch args[1] {
			case "diff":
				n *= 2
			case "dedup":
				data := readFile(t, small)
				n, types = int64(len(data)), shapeStats(data)
			}
			bound := docBound(args, n, types)
			peak, code, stderr := peakRSS(t, timeBin, bin, args...)
			if code > 1 || peak > bound {
				t.Errorf("%v: kmeta %s: status %d %s, peak %d MB, bound %d MB", c, strings.Join(args, " "), code, firstLine(stderr), peak>>20, bound>>20)
			}
		}
	}
}

// TestMinObjWideBpftool: btf min --obj on 2,000 relocations, one on each
// member of a struct of 2,000 members, writes bpftool gen min_core_btf's
// bytes. (Its time against bpftool's, which a scan of the members per
// relocation made 4.4x, is bench/collide.sh's; btf/core's
// TestMemberIndexWork counts the members visited.)
func TestMinObjWideBpftool(t *testing.T) {
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("against bpftool: set KMETA_HEAVY=1")
	}
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("needs clang (CI installs it)")
	}
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("needs bpftool (CI installs it)")
	}
	bin, dir := buildRealKmeta(t), t.TempDir()
	src := writeFile(t, dir, "wide.c", []byte(hostile.WideCORESource(2000)))
	obj, target := filepath.Join(dir, "wide.o"), filepath.Join(dir, "wide.btf")
	if out, err := exec.Command(clang, "-O0", "-g", "-target", "bpf", "-c", src, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v: %s", err, out)
	}
	if out, err := exec.Command(bin, "btf", "copy", obj, "-o", target).CombinedOutput(); err != nil {
		t.Fatalf("btf copy: %v: %s", err, out)
	}
	k, b := filepath.Join(dir, "k.btf"), filepath.Join(dir, "b.btf")
	for _, args := range [][]string{{bin, "btf", "min", target, "--obj", obj, "-o", k}, {bpftool, "gen", "min_core_btf", target, b, obj}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, firstLine(string(out)))
		}
	}
	if !slices.Equal(readFile(t, k), readFile(t, b)) {
		t.Error("output differs from bpftool's")
	}
}

// TestEncodeHostileDWARF: btf encode and kmeta pahole -J on DWARF no
// compiler writes. DIEs nested 100,000 deep are refused at once in one
// line (pahole 1.30 overflows its stack on them); units whose typedefs
// cycle through DW_FORM_ref_addr, and 10,000 units, are encoded.
func TestEncodeHostileDWARF(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.btf")
	for _, tc := range []struct {
		k    hostile.DWARFShape
		n    int
		code int
		want string
	}{
		{hostile.DeepDIEs, 100_000, 2, "DIEs nested deeper than"},
		{hostile.RefAddrCycle, 1_000, 0, ""},
		{hostile.ManyCUs, 10_000, 0, ""},
	} {
		obj := writeFile(t, dir, fmt.Sprintf("%v.o", tc.k), hostile.BuildDWARF(tc.k, tc.n))
		for _, args := range [][]string{
			{"btf", "encode", obj, "-o", out},
			{"pahole", "-J", "--btf_encode_detached", out, obj},
		} {
			peak, code, stderr := heavyRun(t, args...)
			lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1
			if code != tc.code || !strings.Contains(stderr, tc.want) || (stderr != "" && lines != 1) {
				t.Errorf("%v: kmeta %s: status %d, want %d and %q: %s", tc.k, args[0], code, tc.code, tc.want, firstLine(stderr))
			}
			t.Logf("%v of %d: kmeta %s: peak %d MB", tc.k, tc.n, args[0], peak>>20)
		}
	}
}

// TestDiffCollisionsPeakRSS: btf diff of 100,000 CollideStructs (6.8 MB)
// against 3,000 CollideDeep (1.2 MB), where every name of each side is
// shared by thousands of types of the other, stays within the reading
// commands' rule.
func TestDiffCollisionsPeakRSS(t *testing.T) {
	dir := t.TempDir()
	a, sa := collisionFile(t, dir, hostile.CollideStructs, 100_000)
	b, sb := collisionFile(t, dir, hostile.CollideDeep, 3_000)
	// One change holds a detail for each of the 100,000 structs: --json
	// writes them one at a time, as the text does.
	for _, json := range []bool{false, true} {
		args := []string{"btf", "diff", a, b}
		if json {
			args = append(args, "--json")
		}
		peak, code, stderr := heavyRun(t, args...)
		if bound := readBound(sa + sb); code > 1 || peak > bound {
			t.Errorf("--json %v: status %d %s, peak %d MB, bound %d MB", json, code, firstLine(stderr), peak>>20, bound>>20)
		}
	}
}

// TestDiffCollideUnionsPeakRSS: btf diff of 100,000 CollideStructs against
// 10,000 CollideUnions, in either order, where the enums "e" of both sides
// share one name, stays within the reading commands' rule.
func TestDiffCollideUnionsPeakRSS(t *testing.T) {
	dir := t.TempDir()
	a, sa := collisionFile(t, dir, hostile.CollideStructs, 100_000)
	b, sb := collisionFile(t, dir, hostile.CollideUnions, 10_000)
	for _, args := range [][2]string{{a, b}, {b, a}} {
		peak, code, stderr := heavyRun(t, "btf", "diff", args[0], args[1])
		if bound := readBound(sa + sb); code > 1 || peak > bound {
			t.Errorf("%s: status %d %s, peak %d MB, bound %d MB", filepath.Base(args[0]), code, firstLine(stderr), peak>>20, bound>>20)
		}
	}
}
