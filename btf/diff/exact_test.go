package diff_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/diff"
)

// TestRepeatedNames: members that repeat a name are matched as multisets,
// by name and value first, then what is left of a name in order, so that
// the details say what changed (two "x" removed and two "y" added, not
// every "x" moved to the last), held, compared as spelled, and past the
// sizes that factDiff searches without an index or through maps.
func TestRepeatedNames(t *testing.T) {
	for _, c := range []struct {
		old, new string
		want     []string
	}{
		{"x x x x x", "x y x y x", []string{"removed x bit_offset 32", "removed x bit_offset 96", "added y bit_offset 32", "added y bit_offset 96"}},
		{"x y x y x", "x x x x x", []string{"removed y bit_offset 32", "removed y bit_offset 96", "added x bit_offset 32", "added x bit_offset 96"}},
		{"x x x", "x x:long x", []string{"changed x type int -> long"}},
		{"x x", "x", []string{"changed  size 16 -> 8", "removed x bit_offset 32"}},
		{"x y x", "x x y", []string{"changed y bit_offset 32 -> 64", "changed x bit_offset 64 -> 32"}},
		{"_ { _ _ } _", "_ { _ _:long } _", []string{"changed #1 type int -> long"}},
	} {
		for _, k := range []int{1, 300, 1000} {
			old, new := strings.Repeat(c.old+" ", k), strings.Repeat(c.new+" ", k)
			got := map[string][]string{}
			for _, above := range []int{1 << 30, 0} {
				restore := diff.SetStreamAbove(above)
				changes, err := diff.Compare(context.Background(), structsBTF(t, old), structsBTF(t, new), diff.Options{})
				restore()
				if err != nil {
					t.Fatal(err)
				}
				var ds []string
				for _, ch := range changes {
					for _, d := range ch.Details {
						if d.Field == "bitfield_size" || d.Change != diff.Changed && d.Field == "type" {
							continue // one detail a member: its offset
						}
						s := fmt.Sprintf("%s %s %s %v", d.Change, d.Member, d.Field, d.Old)
						switch d.Change {
						case diff.Changed:
							s += fmt.Sprintf(" -> %v", d.New)
						case diff.Added:
							s = fmt.Sprintf("%s %s %s %v", d.Change, d.Member, d.Field, d.New)
						}
						ds = append(ds, s)
					}
				}
				got[fmt.Sprint(above)] = ds
			}
			if k == 1 && fmt.Sprint(got["0"]) != fmt.Sprint(c.want) {
				t.Errorf("%q against %q, streamed: %q, want %q", old, new, got["0"], c.want)
			}
			if fmt.Sprint(got["0"]) != fmt.Sprint(got["1073741824"]) {
				t.Errorf("%q against %q x%d: streamed %d details, held %d", c.old, c.new, k, len(got["0"]), len(got["1073741824"]))
			}
		}
	}
}
