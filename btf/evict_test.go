package btf_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestEvict: a Spec mapped from a file reads the same records and strings
// after Evict and EvictTypes, and so does a Spec in memory, whose pages
// they leave.
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
		n := len(s.TypeSection())
		for _, what := range []string{"before Evict", "after Evict", "after a second Evict", "after EvictTypes of half", "after EvictTypes past the end"} {
			sameRecords(t, what, want, s)
			if strs, _ := s.StringSection(); !bytes.Equal(strs, wantStrs) {
				t.Fatalf("%s: the string section differs", what)
			}
			switch what {
			case "before Evict", "after Evict":
				s.Evict()
			case "after a second Evict":
				s.EvictTypes(0, n/2)
			default:
				s.EvictTypes(n/4, n+1)
			}
		}
	}
	mapped.Close()
	mapped.Evict() // a closed Spec has nothing to evict
	mapped.EvictTypes(0, 1<<20)
}

// TestDiscard: a Spec that holds its data in anonymous memory of its own
// (read from a stream, inflated) gives back the pages behind the offset
// Discard is given, which then read as zeros, and keeps the records from
// there on; a Spec mapped from a file or parsed from the caller's memory
// is left as it is. (A lookup by id walks from one of every few records,
// so the few just past the offset are not looked up.)
func TestDiscard(t *testing.T) {
	data := testfixtures.Read(t, testfixtures.DebianVmlinux)
	want := mustParse(t, data, nil)
	// Discard behind the first type that starts past 1 MB.
	var from btf.TypeID
	off := 0
	for id, ty := range want.Types(btf.ScopeOwn) {
		if off > 1<<20 {
			from = id
			break
		}
		off += len(ty.Record())
	}
	raw := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(raw, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	open := map[string]func() (*btf.Spec, error){
		"mapped": func() (*btf.Spec, error) { return btf.Open(context.Background(), raw, btf.Options{}) },
		"parsed": func() (*btf.Spec, error) { return btf.Parse(data, btf.Options{}) },
		"stream": func() (*btf.Spec, error) { return btf.Read(context.Background(), bytes.NewReader(data), btf.Options{}) },
		"inflated": func() (*btf.Spec, error) {
			return btf.Read(context.Background(), bytes.NewReader(gz.Bytes()), btf.Options{})
		},
	}
	for name, f := range open {
		s, err := f()
		if err != nil {
			t.Fatal(name, err)
		}
		s.Discard(off)
		owned := name == "stream" || name == "inflated"
		if page := s.TypeSection()[off-8192 : off-4096]; owned != bytes.Equal(page, make([]byte, len(page))) {
			t.Errorf("%s: a page behind the offset reads as zeros: %v, want %v", name, !owned, owned)
		}
		for id := from + 8; id <= want.LastID(); id++ {
			a, _ := want.TypeByID(id)
			b, err := s.TypeByID(id)
			if err != nil || !bytes.Equal(a.Record(), b.Record()) {
				t.Fatalf("%s: type %d after Discard differs: %v", name, id, err)
			}
		}
		if !owned {
			sameRecords(t, name+" after Discard", want, s)
		}
		s.Close()
		s.Discard(off) // a closed Spec has nothing to give back
	}
}
