package cdump_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func (c cCase) raw() []byte {
	g := newGen()
	c.build(g)
	return g.bytes()
}

func (c cCase) golden() string { return filepath.Join("testdata", "cases", c.name+".h") }

// TestCases checks each crafted case against what bpftool printed for it.
func TestCases(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(c.golden())
			if err != nil {
				t.Fatal(err)
			}
			got := dumpC(t, parse(t, c.raw(), nil), v71)
			if !bytes.Equal(got, want) {
				t.Errorf("differs from bpftool's %s: %s\ngot body:\n%s", c.golden(), firstDiff(got, want), body(t, got))
			}
		})
	}
}

// TestCasesAgainstBpftool runs the installed bpftool on each case and
// compares. With CDUMP_UPDATE=1 it (re)writes the goldens from bpftool's
// output.
func TestCasesAgainstBpftool(t *testing.T) {
	bpftool(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := c.raw()
			want, err := bpftoolDump(t, raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if os.Getenv("CDUMP_UPDATE") != "" {
				if err := os.MkdirAll(filepath.Dir(c.golden()), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(c.golden(), want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := dumpC(t, parse(t, raw, nil), v71)
			if !bytes.Equal(got, want) {
				t.Errorf("differs from bpftool: %s", firstDiff(got, want))
			}
		})
	}
}

// TestCasesCompile compiles each case's header with clang, one clang
// process each (30 to 40 ms of CPU apiece), with KMETA_HEAVY=1 (.ci/run):
// TestCases checks that each header is bpftool's byte for byte, and the
// plain go test compiles a whole vmlinux.h (TestCompileVmlinux75) and a
// small 7.1 one (TestMiniHeader).
func TestCasesCompile(t *testing.T) {
	clang(t)
	testfixtures.SkipUnlessHeavy(t, "a clang process per case")
	for _, c := range cases {
		if c.noCompile {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			compile(t, dumpC(t, parse(t, c.raw(), nil), v71), "")
		})
	}
}
