package btf_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestEvict: a Spec mapped from a file reads the same records and strings
// after btfmem's Evict and EvictTypes, and so does a Spec in memory, whose pages
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
				btfmem.Evict(s)
			case "after a second Evict":
				btfmem.EvictTypes(s, 0, n/2)
			default:
				btfmem.EvictTypes(s, n/4, n+1)
			}
		}
	}
	mapped.Close()
	btfmem.Evict(mapped) // a closed Spec has nothing to evict
	btfmem.EvictTypes(mapped, 0, 1<<20)
}

// TestDiscard: a Spec that holds its data in anonymous memory of its own
// (read from a stream, inflated) gives back the pages behind the offset
// Discard is given, which then read as zeros, and keeps the records from
// there on; a Spec mapped from a file or parsed from the caller's memory
// is left as it is. What was given back is never handed out: a lookup of
// a discarded type is an error (ErrDiscarded), and so is a lookup that
// would walk from one, a new walk over the records yields nothing, and a
// view of a discarded record taken before reads zeros.
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
		first, err := s.TypeByID(1) // a view taken before Discard
		if err != nil {
			t.Fatal(name, err)
		}
		btfmem.Discard(s, off)
		owned := name == "stream" || name == "inflated"
		if page := s.TypeSection()[off-8192 : off-4096]; owned != bytes.Equal(page, make([]byte, len(page))) {
			t.Errorf("%s: a page behind the offset reads as zeros: %v, want %v", name, !owned, owned)
		}
		if !owned {
			sameRecords(t, name+" after Discard", want, s)
			s.Close()
			continue
		}
		checkDiscarded(t, name, want, s, from)
		if first.Kind() != btf.KindUnknown || first.Record() != nil {
			t.Errorf("%s: a view of a discarded record reads %v", name, first.Kind())
		}
		for range s.Types(btf.ScopeAll) {
			t.Fatalf("%s: a walk after Discard yields a type", name)
		}
		if _, err := s.Find("task_struct", btf.FindOptions{}); !errors.Is(err, btf.ErrDiscarded) {
			t.Errorf("%s: Find after Discard: %v, want ErrDiscarded", name, err)
		}
		s.Close()
		btfmem.Discard(s, off) // a closed Spec has nothing to give back
	}
}

// checkDiscarded checks every lookup by id of s, whose records before
// type from were discarded: those are ErrDiscarded, and so may be a few
// after them, whose lookup walks from one; the others read as in want.
func checkDiscarded(t *testing.T, name string, want, s *btf.Spec, from btf.TypeID) {
	t.Helper()
	found := 0
	for id := btf.TypeID(1); id <= want.LastID(); id++ {
		a, _ := want.TypeByID(id)
		b, err := s.TypeByID(id)
		switch {
		case err != nil && (!errors.Is(err, btf.ErrDiscarded) || id >= from+64):
			t.Fatalf("%s: type %d after Discard: %v", name, id, err)
		case err == nil && id < from:
			t.Fatalf("%s: type %d was discarded, but its lookup succeeds", name, id)
		case err == nil && !bytes.Equal(a.Record(), b.Record()):
			t.Fatalf("%s: type %d after Discard differs", name, id)
		case err == nil:
			found++
		}
	}
	if found == 0 {
		t.Fatalf("%s: no type found after Discard", name)
	}
}
