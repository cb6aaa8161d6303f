package diff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestNamerErrorNamesType: a C name that cdump refuses (prototypes nesting
// through pointer parameters deeper than it declares) is refused in one
// line that names the named type being compared, FUNC 'f', where it named
// INT 'int' [1] (the twelfth red team's param-ptr-chain). About 0.1 s.
func TestNamerErrorNamesType(t *testing.T) {
	raw, err := hostile.BuildVariant12(hostile.ParamPtrChain, 2049)
	s := parseRaw(t, raw, err)
	_, err = diff.Compare(context.Background(), s, s, diff.Options{})
	if !errors.Is(err, cdump.ErrTooDeep) {
		t.Fatalf("err = %v, want cdump.ErrTooDeep", err)
	}
	f, ferr := s.FindOne("f", btf.FindOptions{})
	if ferr != nil {
		t.Fatal(ferr)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "diff: "+f.String()+": ") || strings.Contains(msg, "INT 'int'") || strings.Contains(msg, "\n") {
		t.Fatalf("err = %q, want one line naming %s", msg, f)
	}
}
