package btf_test

import (
	"bytes"
	"iter"
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

// TestRecords checks that Records yields every own type's id and Record
// in id order, for a whole Spec, a split one and a lazy one, and nothing
// once the Spec is closed.
func TestRecords(t *testing.T) {
	base := debianSpec(t)
	b := newRaw(0)
	b.typ("x", btf.KindInt, 0, false, 4, 32)
	split := mustParse(t, b.bytes(), base)
	lazy, err := btf.Parse(b.bytes(), btf.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*btf.Spec{base, split, lazy} {
		next, stop := iter.Pull2(s.Types(btf.ScopeOwn))
		n := 0
		for id, rec := range s.Records() {
			want, ty, ok := next()
			if !ok || id != want || !bytes.Equal(rec, ty.Record()) || cap(rec) != len(rec) {
				t.Fatalf("record %d (id %d) differs from Types' %v", n, id, ty)
			}
			n++
		}
		stop()
		if n != s.NumTypes() {
			t.Errorf("%d records of %d types", n, s.NumTypes())
		}
	}
	split.Close()
	for id := range split.Records() {
		t.Fatalf("type %d yielded after Close", id)
	}
}
