package mmap

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVacate checks that Vacate gives an anonymous and a file region back
// (no page resident, not counted in Live) while their ranges still read,
// as zeros, until unmap.
func TestVacate(t *testing.T) {
	anon, err := New(4 * pageSize)
	if err != nil {
		t.Fatal(err)
	}
	for i := range anon.Bytes() {
		anon.Bytes()[i] = 0xa5
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 4*pageSize), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file, err := File(f, 4*int64(pageSize))
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Region{"anon": anon, "file": file} {
		b := r.Bytes()
		_ = b[len(b)-1] // read a page in
		live := Live()
		unmap, err := r.Vacate()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if Live() != live-1 {
			t.Errorf("%s: Live %d after Vacate, want %d", name, Live(), live-1)
		}
		if res, err := Resident(b); err == nil {
			for i, in := range res {
				if in {
					t.Errorf("%s: page %d resident after Vacate", name, i)
				}
			}
		}
		for i, c := range b {
			if c != 0 {
				t.Fatalf("%s: byte %d reads %#x after Vacate, want 0", name, i, c)
			}
		}
		if err := unmap(); err != nil {
			t.Errorf("%s: unmap: %v", name, err)
		}
		if u, err := r.Vacate(); err != nil || u() != nil {
			t.Errorf("%s: Vacate after Vacate: %v", name, err)
		}
	}
}
