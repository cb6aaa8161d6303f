package diff_test

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
)

// TestUnorderedAsHeld: random pairs of structs whose members move, repeat
// a name (members of no name, "#0" of several anonymous levels), change,
// come and go, compared as they are spelled (every struct, with the
// threshold at 0, values fetched a few at a time or all at once), give the
// changes and the Stream bytes that their signatures held whole give.
func TestUnorderedAsHeld(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 30))
	n := 200
	if testing.Short() || raceEnabled {
		n = 50
	}
	ctx := context.Background()
	for i := range n {
		old := randomLayout(rng, 0)
		new := mutateLayout(rng, old)
		if rng.IntN(8) == 0 {
			new = randomLayout(rng, 0)
		}
		a, b := structsBTF(t, old), structsBTF(t, new)
		want, err := diff.Compare(ctx, a, b, diff.Options{})
		if err != nil {
			t.Fatalf("%q against %q: %v", old, new, err)
		}
		for _, fetch := range []int{1, 1 << 20} {
			restore := diff.SetStreamAbove(0)
			restoreFetch := diff.SetFetchBytes(fetch)
			left := math.MaxInt
			if fetch == 1 { // and the facts left over found by a walk
				left = 0
			}
			restoreLeft := diff.SetLeftBytes(left)
			got, err := diff.Compare(ctx, a, b, diff.Options{})
			var text []byte
			if i%8 == 0 {
				text = streamed(t, a, b, diff.Options{}, want, i%16 == 0)
			}
			restoreLeft()
			restoreFetch()
			restore()
			if err != nil {
				t.Fatalf("%q against %q: streamed: %v", old, new, err)
			}
			if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(diff.Change{})); d != "" {
				t.Fatalf("%q against %q, fetching %d bytes: (-held +streamed):\n%s", old, new, fetch, d)
			}
			if text != nil && !bytes.Equal(text, written(t, want, i%16 == 0)) {
				t.Fatalf("%q against %q: Stream of the changes streamed differs from writing those held", old, new)
			}
		}
	}
}

// randomLayout returns a layout of structsBTF of a few members, some of
// them anonymous structs of members of their own (depth levels in).
func randomLayout(rng *rand.Rand, depth int) string {
	var words []string
	for range 1 + rng.IntN(6) {
		switch r := rng.IntN(20); {
		case r < 2:
			words = append(words, "_")
		case r < 4 && depth < 3:
			words = append(words, "{", randomLayout(rng, depth+1), "}")
		case r < 6 && depth < 3:
			words = append(words, string(rune('p'+rng.IntN(3)))+"{", randomLayout(rng, depth+1), "}")
		default:
			w := string(rune('a' + rng.IntN(6)))
			if rng.IntN(4) == 0 {
				w += ":long"
			}
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// mutateLayout returns layout with a few of its top-level words (a member,
// or an anonymous struct whole) moved, dropped, changed or added.
func mutateLayout(rng *rand.Rand, layout string) string {
	var items []string
	words := strings.Fields(layout)
	for i := 0; i < len(words); i++ {
		item, open := words[i], 0
		if strings.HasSuffix(words[i], "{") {
			open = 1
		}
		for open > 0 {
			i++
			item += " " + words[i]
			switch {
			case strings.HasSuffix(words[i], "{"):
				open++
			case words[i] == "}":
				open--
			}
		}
		items = append(items, item)
	}
	for range 1 + rng.IntN(3) {
		switch j := rng.IntN(len(items)); rng.IntN(4) {
		case 0:
			k := rng.IntN(len(items))
			items[j], items[k] = items[k], items[j]
		case 1:
			if len(items) > 1 {
				items = append(items[:j], items[j+1:]...)
			}
		case 2:
			if strings.HasSuffix(items[j], ":long") {
				items[j] = strings.TrimSuffix(items[j], ":long")
			} else if !strings.Contains(items[j], "{") && items[j] != "_" {
				items[j] += ":long"
			}
		default:
			items = append(items[:j], append([]string{randomLayout(rng, 2)}, items[j:]...)...)
		}
	}
	return strings.Join(items, " ")
}

// TestStreamJSONDetails: Stream writes details by hand as encoding/json
// writes them, whatever their strings and values hold.
func TestStreamJSONDetails(t *testing.T) {
	odd := []string{"", "plain", `q"uote`, `back\slash`, "tab\tnl\nnul\x00\b\f\x1f\x7f", "<&>", "é ü", "bad \xff\xfe utf8", "\u2028\u2029", "#0.x"}
	var details []diff.Detail
	for i, s := range odd {
		details = append(details,
			diff.Detail{Change: diff.Changed, Member: s, Field: "type", Old: s, New: odd[(i+1)%len(odd)]},
			diff.Detail{Change: diff.Added, Enumerator: s, Field: "value", New: uint64(1<<63 + uint64(i))},
			diff.Detail{Change: diff.Removed, Field: s, Old: int64(-i)},
			diff.Detail{Change: diff.Changed, Field: "definitions", Old: i, New: 2 * i},
			diff.Detail{Change: diff.Changed, Field: "signed", Old: i%2 == 0, New: i%2 != 0},
			diff.Detail{Change: diff.Changed, Field: "other", Old: 1.5, New: []int{i}},
			diff.Detail{Change: diff.Changed, Field: "member_order"})
	}
	changes := []diff.Change{{Kind: "struct", Name: "s", Change: diff.Changed, Details: details}}
	var out bytes.Buffer
	s := diff.NewStream(&out, true)
	if err := s.Add(changes[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(diff.Summarize(changes), nil); err != nil {
		t.Fatal(err)
	}
	if want := written(t, changes, true); !bytes.Equal(out.Bytes(), want) {
		t.Errorf("Stream wrote\n%s\nwant\n%s", out.Bytes(), want)
	}
}

// TestUnorderedTooMany: a struct whose flattened facts would take more
// than its BTF allows (200 members of no name of one anonymous struct of
// 1,000: 200,000 facts, "#0" to "#999" each 200 times, from 24 KB) is
// refused in one line naming it, not compared.
func TestUnorderedTooMany(t *testing.T) {
	spec := func(k int) *btf.Spec {
		b, intID, _ := intsBuilder(t)
		var inner []builder.Member
		for i := range 1000 {
			inner = append(inner, builder.Member{Type: intID, BitOffset: uint32(32 * i)})
		}
		in, err := b.AddStruct("", 4000, inner)
		if err != nil {
			t.Fatal(err)
		}
		var ms []builder.Member
		for i := range k {
			ms = append(ms, builder.Member{Type: in, BitOffset: uint32(32000 * i)})
		}
		if _, err := b.AddStruct("s", uint32(4000*k), ms); err != nil {
			t.Fatal(err)
		}
		return parseBuilt(t, b)
	}
	_, err := diff.Compare(context.Background(), spec(200), spec(201), diff.Options{})
	if err == nil || !strings.Contains(err.Error(), "'s'") || !strings.Contains(err.Error(), "too many") || strings.Contains(err.Error(), "\n") {
		t.Errorf("200 against 201 copies of 1,000 members: %v, want one line refusing s", err)
	}
}
