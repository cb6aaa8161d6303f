package layout_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestRefusalCause: the refusals say what is refused (the twelfth red
// team). Prototypes nesting through pointer parameters are not "anonymous
// types and arrays"; a struct that contains itself through more
// anonymous levels than the JSON forms print is refused for containing
// itself, as the text form refuses it. Each error is one line wrapping
// ErrTooComplex and names the struct. The test costs about 0.1 s.
func TestRefusalCause(t *testing.T) {
	forms := map[string]func(*testing.T, []byte, error) error{
		"text": func(t *testing.T, raw []byte, err error) error {
			return layout.Write(context.Background(), io.Discard, parseBuilt(t, raw, err), layout.Options{})
		},
		"json": func(t *testing.T, raw []byte, err error) error {
			return layout.WriteJSONIndent(context.Background(), io.Discard, parseBuilt(t, raw, err), layout.Options{}, "", "  ")
		},
	}
	for _, tc := range []struct {
		name      string
		build     func() ([]byte, error)
		want, not string
	}{
		{"param-ptr-chain", func() ([]byte, error) { return hostile.BuildVariant12(hostile.ParamPtrChain, 10_000) },
			"STRUCT 'outer' [20004]: function prototypes nest at least", "anonymous"},
		{"self-anon-unions", func() ([]byte, error) { return hostile.BuildVariant(hostile.SelfAnonUnions, 2048) },
			"STRUCT 's' [2]: contains itself", "levels"},
		{"wide-deep-proto", func() ([]byte, error) { return hostile.BuildVariant12(hostile.WideDeepProto, 5000) },
			"anonymous types and arrays nest more than", "prototypes"},
	} {
		raw, err := tc.build()
		for form, write := range forms {
			err := write(t, raw, err)
			if !errors.Is(err, layout.ErrTooComplex) {
				t.Fatalf("%s %s: err = %v, want ErrTooComplex", tc.name, form, err)
			}
			// "layout: " once: "... levels deep: layout: type graph too complex" said it again.
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.not) || strings.Contains(msg, "\n") || strings.Count(msg, "layout: ") != 1 {
				t.Errorf("%s %s: err = %q, want one line with %q, without %q", tc.name, form, msg, tc.want, tc.not)
			}
		}
	}
}
