package layout

import (
	"bytes"
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestTrimAlways prints Debian 6.1's layouts, as text and as JSON,
// dropping every class at each chance (no kernel's layouts fill the
// cache): the text must still be pahole 1.24's, and the JSON what the
// cache gives, so that nothing pahole keeps from one struct to the next
// lives only in a class.
func TestTrimAlways(t *testing.T) {
	s := testfixtures.DebianSpec(t)
	want := testfixtures.Read(t, "pahole/debian-6.1.layout.txt.gz")
	ctx := context.Background()
	var wantJSON bytes.Buffer
	if err := WriteJSONIndent(ctx, &wantJSON, s, Options{}, "", "  "); err != nil {
		t.Fatal(err)
	}
	trimAlways = true
	defer func() { trimAlways = false }()
	var got, gotJSON bytes.Buffer
	if err := Write(ctx, &got, s, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONIndent(ctx, &gotJSON, s, Options{}, "", "  "); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Error("the text differs from pahole's when every class is dropped")
	}
	if !bytes.Equal(gotJSON.Bytes(), wantJSON.Bytes()) {
		t.Error("the JSON differs when every class is dropped")
	}
}
