package diff_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
)

// structBTF builds struct s with members and enum e with enumerators.
func structBTF(t *testing.T, size uint32, members []builder.Member, values []builder.Enumerator) *btf.Spec {
	t.Helper()
	b := builder.New()
	for _, n := range []string{"u32", "u64"} {
		if _, err := b.AddInt(n, 8, btf.IntInfo{Bits: 64}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.AddStruct("s", size, members); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddEnum("e", 4, true, values); err != nil {
		t.Fatal(err)
	}
	return parseBuilt(t, b)
}

// TestDetails: a changed struct's and enum's details are data (member,
// field, old and new value), one for each field that differs, and the
// text prints one line for each member. Before issue 40 they were
// preformatted sentences only.
func TestDetails(t *testing.T) {
	old := structBTF(t, 16, []builder.Member{
		{Name: "a", Type: 1}, {Name: "b", Type: 1, BitOffset: 64, BitfieldSize: 3}, {Name: "gone", Type: 2, BitOffset: 96},
	}, []builder.Enumerator{{Name: "X", Value: 1}, {Name: "Y", Value: 2}})
	new := structBTF(t, 24, []builder.Member{
		{Name: "a", Type: 2}, {Name: "b", Type: 1, BitOffset: 131, BitfieldSize: 5}, {Name: "c", Type: 1, BitOffset: 64},
	}, []builder.Enumerator{{Name: "X", Value: 0xffffffff}, {Name: "Z", Value: 3}})
	changes, err := diff.Compare(context.Background(), old, new, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []diff.Change{
		{Kind: "enum", Name: "e", Change: diff.Changed, Details: []diff.Detail{
			{Change: diff.Changed, Enumerator: "X", Field: "value", Old: int64(1), New: int64(-1)},
			{Change: diff.Removed, Enumerator: "Y", Field: "value", Old: int64(2)},
			{Change: diff.Added, Enumerator: "Z", Field: "value", New: int64(3)},
		}},
		{Kind: "struct", Name: "s", Change: diff.Changed, Details: []diff.Detail{
			{Change: diff.Changed, Field: "size", Old: int64(16), New: int64(24)},
			{Change: diff.Changed, Member: "a", Field: "type", Old: "u32", New: "u64"},
			{Change: diff.Changed, Member: "b", Field: "bit_offset", Old: int64(64), New: int64(131)},
			{Change: diff.Changed, Member: "b", Field: "bitfield_size", Old: int64(3), New: int64(5)},
			{Change: diff.Removed, Member: "gone", Field: "bit_offset", Old: int64(96)},
			{Change: diff.Removed, Member: "gone", Field: "bitfield_size", Old: int64(0)},
			{Change: diff.Removed, Member: "gone", Field: "type", Old: "u64"},
			{Change: diff.Added, Member: "c", Field: "bit_offset", New: int64(64)},
			{Change: diff.Added, Member: "c", Field: "bitfield_size", New: int64(0)},
			{Change: diff.Added, Member: "c", Field: "type", New: "u32"},
		}},
	}
	if d := cmp.Diff(want, changes, cmpopts.IgnoreUnexported(diff.Change{})); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	var text bytes.Buffer
	if err := diff.WriteText(&text, changes); err != nil {
		t.Fatal(err)
	}
	wantText := `changed enum e
	enumerator X: 1 -> -1
	removed enumerator Y (2)
	added enumerator Z (3)
changed struct s
	size: 16 -> 24
	member a: type u32 -> u64
	member b: offset 8 -> 16:3, bitfield_size 3 -> 5
	removed member gone (offset 12, u64)
	added member c (offset 8, u32)
`
	if d := cmp.Diff(wantText, text.String()); d != "" {
		t.Errorf("text (-want +got):\n%s", d)
	}
}
