package btf_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestEvict: a Spec mapped from a file reads the same records and strings
// after Evict, and so does a Spec in memory, whose pages Evict leaves.
func TestEvict(t *testing.T) {
	data := testfixtures.Read(t, testfixtures.DebianVmlinux)
	want := mustParse(t, data, nil)
	dir := t.TempDir()
	raw := filepath.Join(dir, "vmlinux.btf")
	if err := os.WriteFile(raw, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped, err := btf.Open(context.Background(), raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mapped.Close()
	inMemory := mustParse(t, data, nil)
	wantStrs, _ := want.StringSection()
	for _, s := range []*btf.Spec{mapped, inMemory} {
		for _, what := range []string{"before Evict", "after Evict", "after a second Evict"} {
			sameRecords(t, what, want, s)
			if strs, _ := s.StringSection(); !bytes.Equal(strs, wantStrs) {
				t.Fatalf("%s: the string section differs", what)
			}
			s.Evict()
		}
	}
	mapped.Close()
	mapped.Evict() // a closed Spec has nothing to evict
}
