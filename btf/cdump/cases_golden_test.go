package cdump_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// The crafted cases (cases_test.go) against bpftool 7.5: its "format c"
// in testdata/cases75/NAME.h, its "format c unsorted" in NAME.unsorted.h,
// written by TestCases75AgainstBpftool with CDUMP_UPDATE=1 (bpftool's
// output, never ours).

func (c cCase) golden75(unsorted bool) string {
	if unsorted {
		return filepath.Join("testdata", "cases75", c.name+".unsorted.h")
	}
	return filepath.Join("testdata", "cases75", c.name+".h")
}

// TestCases75 checks each case against bpftool 7.5's goldens: sorted, with
// the first type left out as bpftool does, and unsorted; and that Write's
// own sorted output differs from bpftool's only by that type.
func TestCases75(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := parse(t, c.raw(), nil)
			for _, unsorted := range []bool{false, true} {
				want, err := os.ReadFile(c.golden75(unsorted))
				if err != nil {
					t.Fatal(err)
				}
				var got []byte
				if unsorted {
					got = dumpC(t, s, cdump.Options{Unsorted: true})
				} else {
					got = dumpSkipFirst(t, s)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("differs from bpftool 7.5's %s: %s\ngot body:\n%s", c.golden75(unsorted), firstDiff(got, want), body(t, got))
				}
			}
			if !c.firstRenames {
				checkOnlyFirstAdded(t, dumpC(t, s, cdump.Options{}), dumpSkipFirst(t, s))
			}
		})
	}
}

// TestCases75AgainstBpftool runs bpftool 7.5 on each case and compares.
// With CDUMP_UPDATE=1 it (re)writes the goldens from bpftool's output.
func TestCases75AgainstBpftool(t *testing.T) {
	bin := bpftool75(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := c.raw()
			s := parse(t, raw, nil)
			for _, unsorted := range []bool{false, true} {
				var extra []string
				got := dumpSkipFirst(t, s)
				if unsorted {
					extra = []string{"unsorted"}
					got = dumpC(t, s, cdump.Options{Unsorted: true})
				}
				want, err := runBpftool(t, bin, raw, nil, extra...)
				if err != nil {
					t.Fatal(err)
				}
				if os.Getenv("CDUMP_UPDATE") != "" {
					if err := os.MkdirAll(filepath.Dir(c.golden75(unsorted)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(c.golden75(unsorted), want, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(got, want) {
					t.Errorf("unsorted=%v: differs from bpftool 7.5: %s", unsorted, firstDiff(got, want))
				}
			}
		})
	}
}

// TestCases75Compile compiles each case's header, sorted and unsorted, with
// clang, with KMETA_HEAVY=1 (.ci/run; see TestCasesCompile).
func TestCases75Compile(t *testing.T) {
	clang(t)
	testfixtures.SkipUnlessHeavy(t, "two clang processes per case")
	for _, c := range cases {
		if c.noCompile {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			s := parse(t, c.raw(), nil)
			compile(t, dumpC(t, s, cdump.Options{}), "")
			compile(t, dumpC(t, s, cdump.Options{Unsorted: true}), "")
		})
	}
}

// dumpSkipFirst prints s as bpftool 7.5 does, without the type that sorts
// first.
func dumpSkipFirst(tb testing.TB, s *btf.Spec) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := cdump.WriteSkipFirst(&buf, s, cdump.Options{}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// prologue75 is what bpftool 7.5 prints before the types.
const prologue75 = wantHeader + "#ifndef __ksym\n#define __ksym __attribute__((section(\".ksyms\")))\n#endif\n\n" +
	"#ifndef __weak\n#define __weak __attribute__((weak))\n#endif\n\n"

// checkOnlyFirstAdded checks that full, Write's sorted header, is skipped,
// bpftool 7.5's, with one declaration more right after the prologue (or
// none, if the type that sorts first prints nothing), and returns it.
func checkOnlyFirstAdded(tb testing.TB, full, skipped []byte) string {
	tb.Helper()
	if !bytes.HasPrefix(full, []byte(prologue75)) || !bytes.HasPrefix(skipped, []byte(prologue75)) {
		tb.Fatalf("no bpftool 7.5 prologue:\n%.500s", full)
	}
	n := len(prologue75)
	if !bytes.HasSuffix(full[n:], skipped[n:]) {
		tb.Fatalf("Write's header is not bpftool 7.5's with one type added at the front: %s", firstDiff(full, skipped))
	}
	added := string(full[n : len(full)-len(skipped)+n])
	if added != "" && (!strings.HasSuffix(added, ";\n\n") || strings.Contains(added[:len(added)-2], "\n\n")) {
		tb.Fatalf("Write adds more than one declaration to bpftool 7.5's header:\n%s", added)
	}
	return added
}
