package distill_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/distill"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzDistill distills arbitrary split BTF on af_key's distilled base (a
// small base, which any module's types may name): whatever Distill
// returns must parse, the split part on the base part, with as many types
// in all as the input referred to at least. Seeds: the distilled modules'
// .BTF sections.
func FuzzDistill(f *testing.F) {
	var base *btf.Spec
	for _, m := range testfixtures.Distilled[:2] {
		split, b := testfixtures.DistilledSections(f, m.Name)
		if base == nil {
			base = testfixtures.Spec(f, b, nil)
		}
		f.Add(split)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		split, err := btf.Parse(data, btf.Options{Base: base})
		if err != nil {
			return
		}
		b, s, err := distill.Distill(split)
		fuzztest.CheckError(t, "distill", err)
		if err != nil {
			return
		}
		dist, err := btf.Parse(b, btf.Options{})
		if err != nil {
			t.Fatalf("distilled base: %v", err)
		}
		out, err := btf.Parse(s, btf.Options{Base: dist})
		if err != nil {
			t.Fatalf("distilled split: %v", err)
		}
		if out.NumTypes() < split.NumTypes() {
			t.Fatalf("%d types, fewer than the input's %d", out.NumTypes(), split.NumTypes())
		}
	})
}
