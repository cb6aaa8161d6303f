package layout_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestDeepMatchesPahole compares layouts nested deeper than the 64 levels
// where the printer stopped before, and a member whose size is that of a
// chain of 1,000 arrays and typedefs (it was 0 past 64; pahole's product
// wraps), (issue 37, redteam9 finding 7) with
// goldens from pahole 1.24 (`pahole -F btf FILE`; pahole 1.30 prints the
// same bytes, but for released-reused, where it adds its comments on
// holes in member types), in testdata/deep.
func TestDeepMatchesPahole(t *testing.T) {
	matchGoldens(t, "deep", []golden{
		{"union-nest-70", func() ([]byte, error) { return hostile.BuildVariant(hostile.UnionNest, 70) }},
		{"deep-of-wide-70", func() ([]byte, error) { return hostile.BuildVariant(hostile.DeepOfWide, 70) }},
		{"copies-deep-70", func() ([]byte, error) { return hostile.BuildVariant(hostile.CopiesDeep, 70) }},
		{"nested-300", func() ([]byte, error) { return hostile.Build(hostile.NestedRecords, 300) }},
		{"array-typedefs-1000", func() ([]byte, error) { return hostile.BuildVariant(hostile.ArrayTypedefs, 1000) }},
		{"released-reused", buildReleasedReused},
	})
}

// golden is an input built for a comparison with pahole 1.24's output in
// testdata/DIR/NAME.pahole-1.24.txt.xz.
type golden struct {
	name  string
	build func() ([]byte, error)
}

// matchGoldens compares the layouts of each input with its golden in
// testdata/dir. KMETA_LAYOUT_GOLDEN=DIR writes the inputs there, to run
// pahole on.
func matchGoldens(t *testing.T, dir string, cases []golden) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := tc.build()
			s := parseBuilt(t, raw, err)
			if out := os.Getenv("KMETA_LAYOUT_GOLDEN"); out != "" {
				if err := os.WriteFile(filepath.Join(out, tc.name+".btf"), raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var got bytes.Buffer
			if err := layout.Write(context.Background(), &got, s, layout.Options{}); err != nil {
				t.Fatal(err)
			}
			want := testfixtures.ReadPath(t, filepath.Join("testdata", dir, tc.name+".pahole-1.24.txt.xz"))
			compareLines(t, want, got.Bytes())
		})
	}
}

// buildReleasedReused builds anonymous records whose last member is an
// anonymous record with padding, used twice, so that the class the
// printer lets go of at its last member is loaded again: for the padding
// comment after it and for its second use.
func buildReleasedReused() ([]byte, error) {
	b, i32, i64, err := intAndLong()
	if err != nil {
		return nil, err
	}
	i8, err := b.AddInt("char", 1, btf.IntInfo{Bits: 8, Encoding: btf.IntSigned})
	if err != nil {
		return nil, err
	}
	padded, err := b.AddStruct("", 16, []builder.Member{{Name: "l", Type: i64}, {Name: "c", Type: i8, BitOffset: 64}})
	if err != nil {
		return nil, err
	}
	s, err := b.AddStruct("", 24, []builder.Member{{Name: "a", Type: i32}, {Name: "v", Type: padded, BitOffset: 64}})
	if err != nil {
		return nil, err
	}
	u, err := b.AddUnion("", 16, []builder.Member{{Name: "x", Type: i8}, {Name: "v", Type: padded}})
	if err != nil {
		return nil, err
	}
	_, err = b.AddStruct("outer", 80, []builder.Member{{Name: "s1", Type: s}, {Name: "s2", Type: s, BitOffset: 192},
		{Name: "u", Type: u, BitOffset: 384}, {Name: "v", Type: padded, BitOffset: 512}})
	if err != nil {
		return nil, err
	}
	return b.Marshal(builder.Options{})
}

// TestTooDeep: past 4,096 levels of anonymous records (pahole dies of
// SIGSEGV past some 6,000) Write fails before it writes anything, naming
// the struct, and so does WriteJSONIndent past 1,024; up to them they
// print.
func TestTooDeep(t *testing.T) {
	text := func(out io.Writer, s *btf.Spec) error {
		return layout.Write(context.Background(), out, s, layout.Options{})
	}
	json := func(out io.Writer, s *btf.Spec) error {
		return layout.WriteJSONIndent(context.Background(), out, s, layout.Options{}, "", "  ")
	}
	for _, tc := range []struct {
		levels int
		write  func(io.Writer, *btf.Spec) error
	}{{4096, text}, {1024, json}} {
		for _, n := range []int{tc.levels, tc.levels + 1} {
			_, s := buildShape(t, hostile.NestedRecords, n)
			var out countWriter
			err := tc.write(&out, s)
			switch {
			case n == tc.levels && (err != nil || out.n == 0):
				t.Errorf("%d levels: %v after %d bytes, want the layout", n, err, out.n)
			case n > tc.levels && (!errors.Is(err, layout.ErrTooComplex) || !strings.Contains(err.Error(), "'outer'") ||
				!strings.Contains(err.Error(), strconv.Itoa(tc.levels)+" levels") || out.n != 0):
				t.Errorf("%d levels: %v after %d bytes, want %v naming outer, and nothing written", n, err, out.n, layout.ErrTooComplex)
			}
		}
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int }

func (w *countWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	return len(b), nil
}

// TestTooDeepShared: an anonymous chain of 4,096 levels printed in struct
// "a" is 4,097 levels deep in struct "b", through one more anonymous
// struct. check, which walked the chain for "a", does not walk it again
// for "b": the printer's own bound refuses "b", by name.
func TestTooDeepShared(t *testing.T) {
	b := builder.New()
	id, err := b.AddInt("int", 4, btf.IntInfo{Bits: 32, Encoding: btf.IntSigned})
	if err != nil {
		t.Fatal(err)
	}
	for range 4096 {
		if id, err = b.AddStruct("", 4, []builder.Member{{Name: "m", Type: id}}); err != nil {
			t.Fatal(err)
		}
	}
	outer, err := b.AddStruct("", 4, []builder.Member{{Name: "m", Type: id}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name string
		typ  btf.TypeID
	}{{"a", id}, {"b", outer}} {
		if _, err := b.AddStruct(s.name, 4, []builder.Member{{Name: "m", Type: s.typ}}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := b.Marshal(builder.Options{})
	spec := parseBuilt(t, raw, err)
	var out bytes.Buffer
	err = layout.Write(context.Background(), &out, spec, layout.Options{})
	if !errors.Is(err, layout.ErrTooComplex) || !strings.Contains(err.Error(), "STRUCT 'b'") || !strings.Contains(err.Error(), "4096 levels") {
		t.Errorf("%v, want %v naming b", err, layout.ErrTooComplex)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte("struct a {\n")) {
		t.Errorf("struct a not printed: %.100q", out.Bytes())
	}
}
