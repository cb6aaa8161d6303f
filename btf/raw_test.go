package btf_test

import (
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
)

// TestTypeSection checks that the type section is the records of the
// Spec's own types, back to back, and that it is nil after Close.
func TestTypeSection(t *testing.T) {
	base := debianSpec(t)
	b := newRaw(0)
	b.typ("x", btf.KindInt, 0, false, 4, 32)
	s := mustParse(t, b.bytes(), nil)
	for _, spec := range []*btf.Spec{base, s} {
		sec := spec.TypeSection()
		off := 0
		for _, ty := range spec.Types(btf.ScopeOwn) {
			r := ty.Record()
			if !bytes.Equal(sec[off:off+len(r)], r) {
				t.Fatalf("%v: record at %d differs from Record()", ty, off)
			}
			off += len(r)
		}
		if off != len(sec) {
			t.Fatalf("records cover %d of %d bytes", off, len(sec))
		}
	}
	s.Close()
	if s.TypeSection() != nil {
		t.Error("TypeSection after Close is not nil")
	}
}
