package layout_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// shapeSizes are sizes of the shapes of wide structs at which the printer
// drops its classes several times while it prints (see trim).
var shapeSizes = map[hostile.Shape]int{
	hostile.Wide: 20_000, hostile.WideUnions: 20_000, hostile.WideNested: 20_000,
	hostile.ManyWide: 300, hostile.DistinctNamed: 20_000,
}

// buildShape returns the shape k of size n, raw and opened.
func buildShape(t *testing.T, k hostile.Shape, n int) ([]byte, *btf.Spec) {
	t.Helper()
	raw, err := hostile.Build(k, n)
	return raw, parseBuilt(t, raw, err)
}

// parseBuilt opens raw, built with err, closing it when the test ends.
func parseBuilt(t *testing.T, raw []byte, err error) *btf.Spec {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestManyWidePrints: 1,100 structs of 1,000 members, valid BTF that
// pahole prints, are not refused as too complex (4ffd8c1 counted the step
// limit by types only, and refused them).
func TestManyWidePrints(t *testing.T) {
	_, s := buildShape(t, hostile.ManyWide, 1100)
	var out bytes.Buffer
	if err := layout.Write(context.Background(), &out, s, layout.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"struct w1099 {", "struct outer {", "/* size: 4400000, cachelines: 68750, members: 1100 */"} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("no %q in the output", want)
		}
	}
}

// TestShapesMatchPahole compares the layouts of the shapes of wide
// structs, which the printer prints dropping its classes as it goes, with
// pahole 1.24's, where pahole is installed.
func TestShapesMatchPahole(t *testing.T) {
	if _, err := exec.LookPath("pahole"); err != nil {
		t.Skip("pahole not installed")
	}
	for _, k := range append(hostile.LayoutShapes(), hostile.Wide) {
		t.Run(k.String(), func(t *testing.T) {
			raw, s := buildShape(t, k, shapeSizes[k])
			matchPahole(t, raw, s)
		})
	}
}

// matchPahole compares the layouts of s, opened from raw, with pahole's.
func matchPahole(t *testing.T, raw []byte, s *btf.Spec) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "shape.btf")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command("pahole", "-F", "btf", file).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := layout.Write(context.Background(), &got, s, layout.Options{}); err != nil {
		t.Fatal(err)
	}
	compareLines(t, want, got.Bytes())
}
