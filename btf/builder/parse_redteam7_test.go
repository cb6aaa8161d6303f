package builder_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzParseWant (issue 37, redteam7c): ParseWant, which had no fuzz
// target, never panics, and a selector it reads is one it reads again
// the same, spelled back as "KIND:NAME" or "NAME".
func FuzzParseWant(f *testing.F) {
	for _, s := range []string{"task_struct", "struct:sk_buff", "typedef u32", " union : x ", "func:", ":", "bogus:x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := builder.ParseWant(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "builder: ") {
				t.Errorf("error without the package prefix: %v", err)
			}
			return
		}
		if w.Name == "" {
			t.Fatalf("%q: empty name", s)
		}
		again := w.Name
		if w.Kind != btf.KindUnknown {
			again = strings.ToLower(w.Kind.String()) + ":" + w.Name
		}
		if strings.ContainsAny(w.Name, ": ") && w.Kind == btf.KindUnknown {
			return // a name with a separator reads as a kind: no round trip
		}
		w2, err := builder.ParseWant(again)
		if err != nil || w2 != w {
			t.Errorf("%q reads as %+v, spelled back %q as %+v, %v", s, w, again, w2, err)
		}
	})
}

// FuzzELF (issue 37, redteam7c): ELF and ELFDistilled, which had no fuzz
// target, never panic on any bytes, and what they wrap is what Extract
// finds in the object: raw as .BTF and base as .BTF.base.
func FuzzELF(f *testing.F) {
	raw := testfixtures.Read(f, "btf/debian-6.1.btf.gz")[:1<<12]
	f.Add(raw, []byte(nil))
	split, base := testfixtures.DistilledSections(f, "debian-6.12-af_key")
	f.Add(split, base)
	f.Add([]byte{0x9f, 0xeb}, []byte{0xeb, 0x9f})
	f.Fuzz(func(t *testing.T, raw, base []byte) {
		obj, err := builder.ELFDistilled(raw, base)
		if err != nil {
			return
		}
		if base == nil {
			plain, err := builder.ELF(raw)
			if err != nil || !bytes.Equal(plain, obj) {
				t.Fatalf("ELF differs from ELFDistilled without a base: %v", err)
			}
		}
		got, gotBase, err := btf.Extract(context.Background(), obj, btf.Options{})
		if err != nil {
			t.Fatalf("Extract of the wrapped object: %v", err)
		}
		if !bytes.Equal(got, raw) || !bytes.Equal(gotBase, base) {
			t.Fatalf("Extract found %d and %d bytes, wrapped %d and %d", len(got), len(gotBase), len(raw), len(base))
		}
	})
}
