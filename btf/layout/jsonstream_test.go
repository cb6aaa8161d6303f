package layout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestWriteJSONStreamed: WriteJSONIndent, which writes a member at a
// time, gives the bytes of a json.Encoder encoding what Layouts returns,
// and WriteJSON those of one encoding each struct, on the host's and
// Debian's kernels, on structs whose anonymous members nest and on
// structs that point to themselves and on names of every byte.
func TestWriteJSONStreamed(t *testing.T) {
	specs := map[string]*btf.Spec{"debian": testfixtures.DebianSpec(t), "host": testfixtures.HostSpec(t)}
	for name, build := range map[string]func() ([]byte, error){
		"wide":   func() ([]byte, error) { return hostile.Build(hostile.Wide, 300) },
		"nested": func() ([]byte, error) { return hostile.Build(hostile.NestedRecords, 40) },
		"empty":  func() ([]byte, error) { return hostile.Build(hostile.Pointers, 3) },
		"loops":  func() ([]byte, error) { return pointerLoops(200) },
		"odd":    oddNames,
	} {
		raw, err := build()
		if err != nil {
			t.Fatal(err)
		}
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		specs[name] = s
	}
	ctx := context.Background()
	for name, s := range specs {
		structs, err := layout.Layouts(ctx, s, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, indent := range [][2]string{{"", "  "}, {"> ", "\t"}, {"", ""}} {
			var want, got bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			enc.SetIndent(indent[0], indent[1])
			if err := enc.Encode(append([]layout.Struct{}, structs...)); err != nil {
				t.Fatal(err)
			}
			if err := layout.WriteJSONIndent(ctx, &got, s, layout.Options{}, indent[0], indent[1]); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				compareLines(t, want.Bytes(), got.Bytes())
				t.Fatalf("%s, indent %q: the outputs differ", name, indent)
			}
		}
		var want, got bytes.Buffer
		want.WriteString("[")
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		for i, st := range structs {
			want.WriteString(map[bool]string{true: "\n", false: ","}[i == 0])
			if err := enc.Encode(st); err != nil {
				t.Fatal(err)
			}
		}
		want.WriteString("]\n")
		if err := layout.WriteJSON(ctx, &got, s, layout.Options{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			compareLines(t, want.Bytes(), got.Bytes())
			t.Fatalf("%s: WriteJSON differs from encoding each struct", name)
		}
	}
}
