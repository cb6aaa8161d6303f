package layout

import (
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestNestedHeldOnce prints a struct of n members, each a chain of 16
// anonymous unions and structs (hostile WideOfDeep), and counts the
// classes still loaded once it is printed: the struct itself, whatever
// n. A nested anonymous struct is let go of at its last member and its
// parent's padding comment reads the class just printed; loaded again
// there, one a member stayed in the cache with the slab block its
// members pinned until trim (n+1 held here), and wide-of-deep-65535
// grew the live heap to the soft memory limit (BENCH.md).
func TestNestedHeldOnce(t *testing.T) {
	for _, n := range []int{100, 1000} {
		raw, err := hostile.BuildVariant(hostile.WideOfDeep, n)
		if err != nil {
			t.Fatal(err)
		}
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		held, structs := -1, 0
		_, err = run(context.Background(), s, Options{}, maxLevels, nil, func(p *printer, _ btf.TypeID, _ *class) error {
			held = max(held, len(p.classes))
			structs++
			return nil
		})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if structs != 1 || held != 1 {
			t.Errorf("n=%d: %d structs printed, %d classes held after one (want 1, 1)", n, structs, held)
		}
	}
}
