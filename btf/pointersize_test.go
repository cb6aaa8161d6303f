package btf_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// TestOptionsPointerSize: Options.PointerSize sets a Spec's pointer size
// over what "long" says (eager and lazy), an ELF file's class takes
// precedence over it, and a size other than 4 or 8 is refused.
func TestOptionsPointerSize(t *testing.T) {
	b := builder.New()
	if _, err := b.AddInt("long", 8, btf.IntInfo{Encoding: btf.IntSigned, Bits: 64}); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, lazy := range []bool{false, true} {
		s, err := btf.Parse(raw, btf.Options{PointerSize: 4, Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.PointerSize(); n != 4 {
			t.Errorf("lazy %v: pointer size %d, want the option's 4", lazy, n)
		}
	}
	if _, err := btf.Parse(raw, btf.Options{PointerSize: 3}); err == nil {
		t.Error("pointer size 3 accepted")
	}
	obj, err := b.MarshalELF(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "obj.o")
	if err := os.WriteFile(path, obj, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := btf.Open(context.Background(), path, btf.Options{PointerSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.PointerSize(); n != 8 {
		t.Errorf("ELF64 opened with PointerSize 4: %d, want the class's 8", n)
	}
}
