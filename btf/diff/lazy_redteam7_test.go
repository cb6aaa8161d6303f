package diff_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestLazyBrokenRecord (issue 37, redteam7c): a lazy Spec whose struct
// refers to a type past the last one stops its iteration before that
// struct; Compare must fail with the record's error, as an eager open
// does, rather than report the types after it as removed or added.
func TestLazyBrokenRecord(t *testing.T) {
	raw, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	empty, err := hostile.Empty()
	if err != nil {
		t.Fatal(err)
	}
	e, err := btf.Parse(empty, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, oldIsBroken := range []bool{false, true} {
		s, err := btf.Parse(raw, btf.Options{Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		old, new := e, s
		if oldIsBroken {
			old, new = s, e
		}
		changes, err := diff.Compare(context.Background(), old, new, diff.Options{})
		var fe *btf.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("broken old %v: got %v, %v; want the record's FormatError", oldIsBroken, changes, err)
		}
	}
}
