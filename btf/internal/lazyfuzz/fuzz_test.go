package lazyfuzz_test

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// FuzzConsumers opens each input eagerly and lazily and runs every
// consumer on both: no panic and no hang either way; where the eager
// open succeeds, each consumer gives the lazy Spec the same result (output
// or error) as the eager one. Seeds: real BTF from testdata (a BPF
// object's, bpftool's minimal BTF of Debian 6.1 for the CO-RE objects, a
// kernel's BTF for a BPF object) and the inputs of issue 37.
// .ci/run runs it for a bounded time.
func FuzzConsumers(f *testing.F) {
	for _, seed := range seeds(f) {
		f.Add(seed)
	}
	obj, err := bpfelf.Parse(testfixtures.Read(f, "core/matches.bpf.o.gz"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		eager, eagerErr := btf.Parse(data, btf.Options{})
		lazy, err := btf.Parse(data, btf.Options{Lazy: true})
		if err != nil {
			if eagerErr == nil {
				t.Fatalf("lazy open failed, eager did not: %v", err)
			}
			return
		}
		got := consume(lazy, obj)
		if eagerErr != nil {
			if lazy.Check() == nil {
				t.Fatalf("Check passed a lazy Spec that Parse refuses: %v", eagerErr)
			}
			return
		}
		want := consume(eager, obj)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("lazy and eager differ:\nlazy:  %.500s\neager: %.500s", got[i], want[i])
			}
		}
	})
}

// consume runs every consumer on s and returns a summary of each result:
// its output, hashed, or its error.
func consume(s *btf.Spec, obj *bpfelf.Object) []string {
	ctx := context.Background()
	var out []string
	add := func(what string, b []byte, err error) {
		if err != nil {
			out = append(out, fmt.Sprintf("%s: error %v", what, err))
			return
		}
		out = append(out, fmt.Sprintf("%s: %d bytes %x", what, len(b), sum(b)))
	}
	// The writers' output is hashed as it is written, not held: on
	// hostile shapes it runs to hundreds of MB.
	written := func(what string, write func(w io.Writer) error) {
		w := newSummer()
		if err := write(w); err != nil {
			out = append(out, fmt.Sprintf("%s: error %v", what, err))
			return
		}
		out = append(out, fmt.Sprintf("%s: %d bytes %x", what, w.n, w.h.Sum64()))
	}
	raw, err := dedup.Specs(nil, s)
	add("dedup", raw, err)
	written("cdump", func(w io.Writer) error { return cdump.Write(w, s, cdump.Options{}) })
	written("layout", func(w io.Writer) error { return layout.Write(ctx, w, s, layout.Options{}) })
	written("layout json", func(w io.Writer) error { return layout.WriteJSON(ctx, w, s, layout.Options{}) })
	changes, err := diff.Compare(ctx, s, s, diff.Options{})
	add("diff", []byte(fmt.Sprint(changes)), err)
	b := builder.New()
	err = b.CopyAll(s)
	if err == nil {
		raw, err = b.Marshal(builder.Options{})
	}
	add("copy", raw, err)
	written("write copy", func(w io.Writer) error { return builder.WriteCopy(w, s, nil, builder.Options{}) })
	out = append(out, minimal(s))
	rs, err := core.Resolve(ctx, obj.CORE(), core.NewTarget(s))
	add("core", []byte(fmt.Sprint(rs)), err)
	out = append(out, sizes(s))
	return out
}

// minimal runs builder.Minimal for the first named struct or union.
func minimal(s *btf.Spec) string {
	for _, t := range s.All() {
		if (t.Kind() == btf.KindStruct || t.Kind() == btf.KindUnion) && t.Name() != "" {
			want := []builder.Want{{Name: t.Name(), Kind: t.Kind()}}
			opts := builder.MinimalOptions{FwdPointees: true}
			var streamed bytes.Buffer
			streamErr := builder.WriteMinimal(&streamed, s, want, opts, builder.Options{})
			b, err := builder.Minimal(s, want, opts)
			if err != nil {
				return fmt.Sprintf("minimal: error %v; streamed: error %v", err, streamErr)
			}
			raw, err := b.Marshal(builder.Options{})
			return fmt.Sprintf("minimal: %x %v; streamed: %x %v", sum(raw), err, sum(streamed.Bytes()), streamErr)
		}
	}
	return "minimal: none"
}

// sizes resolves, sizes and aligns every type.
func sizes(s *btf.Spec) string {
	h := fnv(0)
	for id := range s.All() {
		_, err := s.Resolve(id)
		size, err2 := s.SizeOf(id)
		align, err3 := s.AlignOf(id)
		h = fnv(h, []byte(fmt.Sprint(err, size, err2, align, err3))...)
	}
	return fmt.Sprintf("sizes: %x", h)
}

// sum is a hash of b, to compare the outputs of one process: maphash
// (tens of GB/s), not fnv byte by byte, since a consumer's output on a
// hostile shape runs to hundreds of MB (deep-of-wide's layout took about
// half of TestNinthConsumers' CPU time in fnv).
func sum(b []byte) uint64 { return maphash.Bytes(sumSeed, b) }

// sumSeed is sum's seed, one for the process.
var sumSeed = maphash.MakeSeed()

// summer is an io.Writer that hashes what it is given, as sum would
// hash all of it at once, and counts its bytes, without holding them.
type summer struct {
	h maphash.Hash
	n int
}

func newSummer() *summer {
	w := &summer{}
	w.h.SetSeed(sumSeed)
	return w
}

func (w *summer) Write(p []byte) (int, error) {
	w.n += len(p)
	return w.h.Write(p)
}

func fnv(h uint64, b ...byte) uint64 {
	if h == 0 {
		h = 14695981039346656037
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// seeds returns the real BTF of testdata and the inputs of issue 37.
func seeds(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, p := range []string{"elf/prog.bpf.o.gz", "core/gen/bpftool/flav1.debian-6.1.min.btf.gz", "core/gen/bpftool/gen1.debian-6.1.min.btf.gz"} {
		s, err := btf.Read(context.Background(), bytes.NewReader(testfixtures.Read(tb, p)), btf.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		b := builder.New()
		if err := b.CopyAll(s); err != nil {
			tb.Fatal(err)
		}
		raw, err := b.Marshal(builder.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, raw)
	}
	for _, mk := range issue37 {
		raw, err := mk()
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// issue37 makes the inputs of issue 37 that reach the library: a
// dangling type id, a struct holding an ENUM of size 0, a struct of
// members of its own type, nested anonymous records, and three of the
// ninth campaign's variants.
var issue37 = []func() ([]byte, error){
	hostile.DanglingRef,
	hostile.ZeroEnumMember,
	func() ([]byte, error) { return hostile.WideSelf("wide", 100) },
	func() ([]byte, error) { return hostile.Nested(50, hostile.NestedCycle) },
	// The ninth campaign's self-embedding through an array, a typedef
	// and anonymous unions, and its ring through every reference kind.
	func() ([]byte, error) { return hostile.BuildVariant(hostile.SelfTypedefArr, 2) },
	func() ([]byte, error) { return hostile.BuildVariant(hostile.SelfAnonUnions, 3) },
	func() ([]byte, error) { return hostile.BuildVariant(hostile.MixedRing, 12) },
}
