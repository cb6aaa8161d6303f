package hostile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
)

// TestVariant11 builds every Variant11 at a small size, standalone and
// split on another, and parses it back.
func TestVariant11(t *testing.T) {
	base, err := BuildVariant(UnionNest, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Variant11s() {
		raw, err := BuildVariant11(v, 70)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		s.Close()
		if _, err := BuildVariant11On(base, v, 70); err != nil {
			t.Fatalf("%v on a base: %v", v, err)
		}
		if d := os.Getenv("KMETA_RT11_DUMP"); d != "" {
			os.WriteFile(filepath.Join(d, v.String()+".btf"), raw, 0o644)
		}
	}
	if _, err := BuildBaseRefs(base, 70); err == nil {
		t.Fatal("base refs on a base of no named structs: no error")
	}
	for _, k := range Kallsyms11s() {
		if len(BuildKallsyms11(k, 70)) == 0 {
			t.Fatalf("%v: empty", k)
		}
	}
}

// TestDWARF11 writes every DWARF11 shape at a small size into
// $KMETA_RT11_DUMP, for a look with pahole.
func TestDWARF11(t *testing.T) {
	for _, k := range DWARF11Shapes() {
		obj := BuildDWARF11(k, 70)
		if d := os.Getenv("KMETA_RT11_DUMP"); d != "" {
			os.WriteFile(filepath.Join(d, "dwarf-"+k.String()+".o"), obj, 0o644)
		}
	}
}
