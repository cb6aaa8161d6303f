package cdump_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/ulikunitz/xz"
)

// tieCases are crafted inputs whose types tie on every part of bpftool
// 7.5's sort key but the type id: rank, sort name, own name and hash are
// the same within each group. bpftool sorts them with glibc's qsort, so
// these cases pin down what qsort does with them (see sort.go). n is the
// size of each group: large enough that glibc's merge sort takes its
// malloc'd buffer and merges many levels.
func tieCases(n int) []cCase {
	return []cCase{
		{name: fmt.Sprintf("ties-enums-%d", n), build: func(g *gen) {
			// enum e { v = i }: the redteam's input of issue 37.
			for i := range n {
				g.enum("e", 4, false, enumerator{"v", uint64(i)})
			}
		}, firstRenames: true},
		{name: fmt.Sprintf("ties-anon-enums-%d", n), build: func(g *gen) {
			// Anonymous enums sort by their first enumerator's name.
			for i := range n {
				g.enum("", 4, false, enumerator{"V", uint64(i)}, enumerator{fmt.Sprintf("W%d", i%3), 0})
			}
		}, firstRenames: true}, // its constants
		{name: fmt.Sprintf("ties-records-%d", n), build: func(g *gen) {
			// Structs and unions of one name and the same member names
			// and member type names: equal hashes, different sizes.
			i32, c, _, _ := g.std()
			for i := range n {
				sz := uint32(4 * (1 + i%7))
				if i%2 == 0 {
					g.strct("s", sz, member{"a", i32, 0, 0}, member{"b", c, 8 * (sz - 1), 0})
				} else {
					g.union("s", sz, member{"a", i32, 0, 0}, member{"b", c, 0, 0})
				}
			}
		}, firstRenames: true},
		{name: fmt.Sprintf("ties-typedefs-%d", n), build: func(g *gen) {
			// Typedefs of one name to structs of one name: rank 3, sort
			// name "s", own name "t", one hash.
			i32, _, _, _ := g.std()
			for i := range n {
				s := g.strct("s", uint32(4*(1+i%5)), member{"a", i32, 0, 0})
				g.typedef("t", s)
			}
		}, firstRenames: true},
		{name: fmt.Sprintf("ties-anon-records-%d", n), build: func(g *gen) {
			// Anonymous structs and unions of the same member names, and
			// typedefs and pointers that lead to them.
			i32, _, l, _ := g.std()
			for i := range n {
				var a = g.strct("", uint32(8*(1+i%4)), member{"x", i32, 0, 0})
				if i%3 == 1 {
					a = g.union("", uint32(8*(1+i%4)), member{"x", i32, 0, 0})
				}
				switch i % 4 {
				case 0:
					g.typedef(fmt.Sprintf("a%d_t", i%10), a)
				case 1:
					g.ptr(a)
				case 2:
					g.strct("holder", 16, member{"p", g.ptr(a), 0, 0}, member{"l", l, 64, 0})
				}
			}
		}},
		{name: fmt.Sprintf("ties-mixed-%d", n), build: func(g *gen) {
			// Everything at once: named and anonymous enums, records,
			// typedefs, prototypes with and without names, pointers,
			// arrays and qualifiers that tie among themselves, interleaved.
			i32, c, _, _ := g.std()
			for i := range n {
				switch i % 9 {
				case 0:
					g.enum("e", 4, false, enumerator{"v", uint64(i)})
				case 1:
					g.enum("", 4, false, enumerator{"A", uint64(i)})
				case 2:
					g.strct("s", uint32(4*(1+i%5)), member{"a", i32, 0, 0})
				case 3:
					g.typedef("t", g.strct("s", 8, member{"a", i32, 0, 0}))
				case 4:
					g.typedef("fn_t", g.proto(i32, param{"x", c}))
				case 5:
					g.ptr(g.proto(c, param{"", i32}))
				case 6:
					g.typedef("arr_t", g.array(c, i32, uint32(1+i%4)))
				case 7:
					g.cnst(g.volatile(g.strct("", 4, member{"z", i32, 0, 0})))
				case 8:
					g.union("s", 4, member{"a", i32, 0, 0})
				}
			}
		}, firstRenames: true},
	}
}

// tieN is the size of each group in the committed goldens: 32 KB of
// bpftool's 32-byte sort records, past the 1 KiB that glibc's qsort sorts
// on the stack.
const tieN = 1000

// The three outputs of each tie case that testdata/ties holds, as
// TestTiesAgainstBpftool wrote them with CDUMP_UPDATE=1 (xz-compressed
// bpftool output, never ours).
var tieModes = []struct {
	name string // file suffix
	v75  bool   // bpftool 7.5, not Debian 12's 7.1
	args []string
}{
	{"75", true, nil},
	{"75-unsorted", true, []string{"unsorted"}},
	{"71", false, nil},
}

func tieGolden(c cCase, mode string) string {
	return filepath.Join("testdata", "ties", c.name+"."+mode+".h.xz")
}

// tieDump is kmeta's output for one of tieModes: the sorted 7.5 mode
// without the type that sorts first, as bpftool prints it.
func tieDump(tb testing.TB, c cCase, mode string) []byte {
	tb.Helper()
	s := parse(tb, c.raw(), nil)
	switch mode {
	case "75":
		return dumpSkipFirst(tb, s)
	case "75-unsorted":
		return dumpC(tb, s, cdump.Options{Unsorted: true})
	}
	return dumpC(tb, s, v71)
}

// TestTies checks the tie cases against bpftool 7.5's and 7.1's goldens,
// and, where the type that sorts first shares no name with later ones,
// that Write's own sorted header is bpftool 7.5's with that type added.
func TestTies(t *testing.T) {
	for _, c := range tieCases(tieN) {
		t.Run(c.name, func(t *testing.T) {
			for _, m := range tieModes {
				want := testfixtures.ReadPath(t, tieGolden(c, m.name))
				if got := tieDump(t, c, m.name); !bytes.Equal(got, want) {
					t.Errorf("differs from %s: %s", tieGolden(c, m.name), firstDiff(got, want))
				}
			}
			if !c.firstRenames {
				checkOnlyFirstAdded(t, dumpC(t, parse(t, c.raw(), nil), cdump.Options{}), tieDump(t, c, "75"))
			}
		})
	}
}

// TestTiesAgainstBpftool runs bpftool 7.5 and (if it is on the PATH) 7.1
// on the tie cases and compares, at tieN (with CDUMP_UPDATE=1 it (re)writes the goldens from
// their output), at 10,000 (the size of issue 37's enums) and, with
// KMETA_HEAVY=1, at 100,000.
func TestTiesAgainstBpftool(t *testing.T) {
	bins := map[bool]string{true: bpftool75(t)}
	if p, err := exec.LookPath("bpftool"); err == nil && strings.Contains(bpftoolVersion(t, p), " v7.1.") {
		bins[false] = p
	}
	sizes := []int{tieN, 10_000}
	if testfixtures.Heavy() {
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		for _, c := range tieCases(n) {
			t.Run(c.name, func(t *testing.T) {
				raw := c.raw()
				for _, m := range tieModes {
					if bins[m.v75] == "" {
						t.Logf("%s: no bpftool 7.1 on the PATH, not checked", m.name)
						continue
					}
					want, err := runBpftool(t, bins[m.v75], raw, nil, m.args...)
					if err != nil {
						t.Fatal(err)
					}
					if n == tieN && os.Getenv("CDUMP_UPDATE") != "" {
						writeXZ(t, tieGolden(c, m.name), want)
					}
					if got := tieDump(t, c, m.name); !bytes.Equal(got, want) {
						t.Errorf("%s: differs from bpftool: %s", m.name, firstDiff(got, want))
					}
				}
			})
		}
	}
}

func writeXZ(tb testing.TB, path string, b []byte) {
	tb.Helper()
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestTiesOrderFree shows that bpftool 7.5's sort never finds two types
// equal, so that its order does not depend on glibc's qsort: with a qsort
// that reverses the array before glibc's stable merge sort runs on it
// (testdata/ties/qsort-reverse.c, preloaded), bpftool prints the same
// header for each tie case. Needs bpftool 7.5 and a C compiler.
func TestTiesOrderFree(t *testing.T) {
	b75 := bpftool75(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc: skipping the preloaded qsort")
	}
	shim := filepath.Join(t.TempDir(), "qsort-reverse.so")
	src, err := filepath.Abs(filepath.Join("testdata", "ties", "qsort-reverse.c"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O2", "-shared", "-fPIC", "-o", shim, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	for _, c := range tieCases(tieN) {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "t.btf")
			if err := os.WriteFile(file, c.raw(), 0o644); err != nil {
				t.Fatal(err)
			}
			want, err := exec.Command(b75, "btf", "dump", "file", file, "format", "c").Output()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(b75, "btf", "dump", "file", file, "format", "c")
			cmd.Env = append(os.Environ(), "LD_PRELOAD="+shim, "QSORT_REVERSE=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.Bytes())
			}
			if !bytes.Contains(stderr.Bytes(), []byte("qsort-reverse: ")) {
				t.Fatalf("the preloaded qsort did not run: %q", stderr.Bytes())
			}
			if !bytes.Equal(got, want) {
				t.Errorf("bpftool's order depends on the input's order: %s", firstDiff(got, want))
			}
		})
	}
}
