package diff_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestStreamedAsHeld: structs compared as they are spelled (every struct,
// with the threshold at 0) give the changes that their signatures held
// whole give, on two kernels, deep anonymous members, and structs whose
// members moved, repeat a name, or come in groups of several of a name;
// with the first pass keeping the details and not.
func TestStreamedAsHeld(t *testing.T) {
	deep := func(n int) *btf.Spec { return deepOfWide(t, n) }
	var debian, host *btf.Spec
	if !raceEnabled || testfixtures.Heavy() {
		debian, host = testfixtures.DebianSpec(t), testfixtures.HostSpec(t)
	}
	pairs := []struct {
		name     string
		old, new *btf.Spec
	}{
		{"debian against host", debian, host},
		{"40 against 41 levels", deep(40), deep(41)},
		{"41 against 40 levels", deep(41), deep(40)},
		{"members moved", structsBTF(t, "a b c d"), structsBTF(t, "d b c a")},
		{"members moved, one changed", structsBTF(t, "a b c"), structsBTF(t, "c b a:long")},
		{"same members in another order", structsBTF(t, "a:0 b:1"), structsBTF(t, "b:1 a:0")},
		{"a name twice", structsBTF(t, "a b a c"), structsBTF(t, "a b:long c")},
		{"changed around the same", structsBTF(t, "a b c d e"), structsBTF(t, "a:long b c:long d e:long")},
		{"added and removed", structsBTF(t, "a b c d e"), structsBTF(t, "a x c:long e y")},
		{"nested", structsBTF(t, "a x{ b c { d } } e { f }"), structsBTF(t, "a x{ b c:long { d y } } { f } e")},
		{"groups", structsBTF(t, "a b", "a c", "a b"), structsBTF(t, "a b:long", "a d")},
		{"groups of copies", structsBTF(t, "a b", "a b", "x{ c }", "a c"), structsBTF(t, "a c", "x{ c }", "a b", "a c", "x{ d }")},
		{"groups moved", structsBTF(t, "a b c", "x{ y }"), structsBTF(t, "c b a", "x{ y:long }")},
	}
	if raceEnabled && !testfixtures.Heavy() {
		// One goroutine, no state shared: the kernels take 20 s
		// under the race detector (TestWalkComparesAgain runs
		// workers).
		pairs = pairs[1:]
	}
	ctx := context.Background()
	for _, p := range pairs {
		want, err := diff.Compare(ctx, p.old, p.new, diff.Options{})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if len(want) == 0 {
			t.Fatalf("%s: no changes", p.name)
		}
		for _, kept := range []bool{true, false} {
			restore := diff.SetStreamAbove(0)
			if !kept {
				restore = func(r1, r2 func()) func() { return func() { r1(); r2() } }(restore, diff.SetKeptBytes(0))
			}
			got, err := diff.Compare(ctx, p.old, p.new, diff.Options{})
			restore()
			if err != nil {
				t.Fatalf("%s: streamed: %v", p.name, err)
			}
			if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(diff.Change{})); d != "" {
				t.Errorf("%s, details kept %v: (-held +streamed):\n%s", p.name, kept, d)
			}
		}
		// Stream takes details whose strings the next reuses. (Not
		// on the kernels: it would double the test's time.)
		for _, json := range []bool{false, true} {
			if p.old == debian {
				break
			}
			restore := diff.SetStreamAbove(0)
			got := streamed(t, p.old, p.new, diff.Options{}, want, json)
			restore()
			if !bytes.Equal(written(t, want, json), got) {
				t.Errorf("%s, json %v: Stream of the changes streamed differs from writing those held", p.name, json)
			}
		}
	}
}

// structsBTF returns a BTF of a struct "s" for each layout: words
// separated by spaces, each a member: "name" (an int), "name:long",
// "name:N" (an int at the N-th int; members are otherwise one after the
// other), "_" (an int of no name), or "name{" or "{" then members then "}" (a member, named or
// not, of an anonymous struct of those members).
func structsBTF(t *testing.T, layouts ...string) *btf.Spec {
	t.Helper()
	b, intID, longID := intsBuilder(t)
	var err error
	var parse func(words []string) ([]builder.Member, []string)
	parse = func(words []string) ([]builder.Member, []string) {
		var ms []builder.Member
		for len(words) > 0 {
			w := words[0]
			words = words[1:]
			if w == "}" {
				break
			}
			m := builder.Member{Type: intID, BitOffset: uint32(32 * len(ms))}
			name, typ, _ := strings.Cut(w, ":")
			if name, ok := strings.CutSuffix(name, "{"); ok {
				var inner []builder.Member
				inner, words = parse(words)
				if m.Type, err = b.AddStruct("", uint32(8*len(inner)), inner); err != nil {
					t.Fatal(err)
				}
				m.Name = name
			} else if name != "_" {
				m.Name = name
			}
			if typ == "long" {
				m.Type = longID
			} else if at, err := strconv.Atoi(typ); err == nil {
				m.BitOffset = uint32(32 * at)
			}
			ms = append(ms, m)
		}
		return ms, words
	}
	for _, layout := range layouts {
		ms, _ := parse(strings.Fields(layout))
		if _, err := b.AddStruct("s", uint32(8*len(ms)), ms); err != nil {
			t.Fatal(err)
		}
	}
	return parseBuilt(t, b)
}

// cancelAfter is a context whose Err reports it cancelled from its n-th
// check on.
type cancelAfter struct {
	context.Context
	n, checks atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.checks.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

// TestStreamedCancels: structs compared as they are spelled check the
// context in proportion to the bytes spelled (deep-of-wide-1000, 50 MB of
// paths, against itself and against deep-of-wide-100; 1,000 levels
// against the same with each level's members reversed), and stop at the
// first check that finds it cancelled.
func TestStreamedCancels(t *testing.T) {
	deep := func(n int) *btf.Spec { return deepOfWide(t, n) }
	d100, d1000 := deep(100), deep(1000)
	pairs := [][2]*btf.Spec{{d1000, d1000}, {d100, d1000}}
	if !raceEnabled || testfixtures.Heavy() {
		// One goroutine, nothing shared: not under the race
		// detector, where it would take seconds.
		pairs = append(pairs, [2]*btf.Spec{deepLevels(t, 1000, false), deepLevels(t, 1000, true)})
	}
	for _, p := range pairs {
		ctx := &cancelAfter{Context: context.Background()}
		ctx.n.Store(1 << 40)
		if _, err := diff.Compare(ctx, p[0], p[1], diff.Options{}); err != nil {
			t.Fatal(err)
		}
		all := ctx.checks.Load()
		if all < 50 {
			t.Errorf("%d checks of the context for 50 MB of paths, want at least 50", all)
		}
		ctx = &cancelAfter{Context: context.Background()}
		ctx.n.Store(all / 2)
		_, err := diff.Compare(ctx, p[0], p[1], diff.Options{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at check %d of %d: %v, want context.Canceled", all/2, all, err)
		}
		if got := ctx.checks.Load(); got != all/2 {
			t.Errorf("%d checks of the context, want %d: it went on once cancelled", got, all/2)
		}
	}
}

// deepLevels returns a BTF of a struct "outer" of n levels below it,
// each of 32 ints and a member "n" of an anonymous struct, the next
// level; with reversed, each level's members in the other order and
// every seventh int a long.
func deepLevels(t *testing.T, n int, reversed bool) *btf.Spec {
	t.Helper()
	b, intID, longID := intsBuilder(t)
	var err error
	var next btf.TypeID
	for l := n; l >= 0; l-- {
		var ms []builder.Member
		for i := range 32 {
			ms = append(ms, builder.Member{Name: "w" + strconv.Itoa(i), Type: intID, BitOffset: uint32(32 * i)})
		}
		if next != 0 {
			ms = append(ms, builder.Member{Name: "n", Type: next, BitOffset: 32 * 32})
		}
		if reversed {
			slices.Reverse(ms)
			for i := 3; i < len(ms); i += 7 {
				if ms[i].Type == intID {
					ms[i].Type = longID
				}
			}
		}
		name := ""
		if l == 0 {
			name = "outer"
		}
		if next, err = b.AddStruct(name, 256, ms); err != nil {
			t.Fatal(err)
		}
	}
	return parseBuilt(t, b)
}

// intsBuilder returns a Builder holding an int and a long, and their ids.
func intsBuilder(t *testing.T) (b *builder.Builder, intID, longID btf.TypeID) {
	t.Helper()
	b = builder.New()
	intID, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err == nil {
		longID, err = b.AddInt("long", 8, btf.IntInfo{Encoding: btf.IntSigned, Bits: 64})
	}
	if err != nil {
		t.Fatal(err)
	}
	return b, intID, longID
}
