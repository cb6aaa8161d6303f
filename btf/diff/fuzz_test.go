package diff_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// fuzzPairs are the types whose minimal BTFs seed FuzzCompare, once from
// Debian 6.1 and once from the host 6.18: real pairs, changed (sk_buff,
// file_system_type) and unchanged (list_head), with an enum and
// functions.
var fuzzPairs = []builder.Want{
	{Name: "list_head", Kind: btf.KindStruct},
	{Name: "sk_buff", Kind: btf.KindStruct},
	{Name: "file_system_type", Kind: btf.KindStruct},
	{Name: "pid_type", Kind: btf.KindEnum},
	{Name: "vfs_read", Kind: btf.KindFunc},
	{Name: "tcp_v4_connect", Kind: btf.KindFunc},
}

// minimalBTF returns the raw BTF of want and what it reaches in s.
func minimalBTF(tb testing.TB, s *btf.Spec, want ...builder.Want) []byte {
	tb.Helper()
	b, err := builder.Minimal(s, want, builder.MinimalOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// FuzzCompare compares mutated pairs of BTF, seeded with small real ones:
// the minimal BTF of a few types from two kernels, and the whole BTF of
// testdata/elf/prog.bpf.o against each. Whatever two Specs btf.Parse
// accepts, Compare must return without panicking, a BTF compared with
// itself must have no changes, and the added and removed types must be
// the same whichever way round the pair is compared.
func FuzzCompare(f *testing.F) {
	deb, host := testfixtures.DebianSpec(f), testfixtures.HostSpec(f)
	obj, err := btf.Read(context.Background(), bytes.NewReader(testfixtures.Read(f, "elf/prog.bpf.o.gz")), btf.Options{})
	if err != nil {
		f.Fatal(err)
	}
	ob := builder.New()
	if err := ob.CopyAll(obj); err != nil {
		f.Fatal(err)
	}
	prog, err := ob.Marshal(builder.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(prog, prog)
	for _, w := range fuzzPairs {
		old, new := minimalBTF(f, deb, w), minimalBTF(f, host, w)
		f.Add(old, new)
		f.Add(prog, new)
	}
	f.Add(minimalBTF(f, deb, fuzzPairs[:3]...), minimalBTF(f, host, fuzzPairs[3:]...))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		sa, err := btf.Parse(a, btf.Options{})
		if err != nil {
			return
		}
		sb, err := btf.Parse(b, btf.Options{})
		if err != nil {
			return
		}
		ctx := context.Background()
		if same, err := diff.Compare(ctx, sa, sa, diff.Options{}); err == nil && len(same) > 0 {
			t.Fatalf("a BTF against itself: %d changes, first %+v", len(same), same[0])
		}
		ab, errAB := diff.Compare(ctx, sa, sb, diff.Options{})
		fuzztest.CheckError(t, "diff", errAB)
		ba, errBA := diff.Compare(ctx, sb, sa, diff.Options{})
		if errAB != nil || errBA != nil {
			return
		}
		if err := diff.WriteText(io.Discard, ab); err != nil {
			t.Fatal(err)
		}
		if err := diff.WriteJSON(io.Discard, diff.Report{Changes: ab, Summary: diff.Summarize(ab)}); err != nil {
			t.Fatal(err)
		}
		if x, y := endpoints(ab), endpoints(ba); len(x) != len(y) || !sameSet(x, y) {
			t.Fatalf("added and removed differ by direction: %v against %v", x, y)
		}
	})
}

// endpoints returns the added and removed types of changes, as seen from
// the old side: "removed KIND NAME" for a removed type and "added KIND
// NAME" for an added one, with the direction swapped for the reverse
// comparison by sameSet.
func endpoints(changes []diff.Change) map[string]string {
	m := make(map[string]string)
	for _, c := range changes {
		if c.Change != diff.Changed {
			m[c.Kind+" "+c.Name] = c.Change
		}
	}
	return m
}

// sameSet reports whether y is x with added and removed swapped.
func sameSet(x, y map[string]string) bool {
	swap := map[string]string{diff.Added: diff.Removed, diff.Removed: diff.Added}
	for k, v := range x {
		if y[k] != swap[v] {
			return false
		}
	}
	return true
}
