package dedup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestBasePages deduplicates split BTF that repeats a few hundred types
// of its base (redteam10's base-copies) on a vmlinux mapped from a file:
// the Base reads the records it compares from its page copies
// (basePages), which hold the file's words, and copies only the pages
// read, not the whole type section (BENCH.md, "A split input that
// repeats its base"), also when Mergers copy them at once. The output is
// the one of a Base on the heap.
func TestBasePages(t *testing.T) {
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	vm, err := btf.Open(context.Background(), path, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	base, err := NewBase(vm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := base.pages
	if p == nil {
		t.Skip("the vmlinux is not read in place from its mapping here")
	}
	split, err := hostile.BuildBaseCopies(raw, 1000)
	if err != nil {
		t.Fatal(err)
	}
	dedup := func(vm *btf.Spec, base *Base) []byte {
		t.Helper()
		s, err := btf.Parse(split, btf.Options{Base: vm})
		if err != nil {
			t.Error(err) // called on other goroutines: no Fatal
			return nil
		}
		out, err := Specs(base, s)
		if err != nil {
			t.Error(err)
		}
		return out
	}
	// Mergers on one Base copy its pages concurrently (-race).
	outs := make([][]byte, 3)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() { outs[i] = dedup(vm, base) })
	}
	wg.Wait()
	got := outs[0]
	for _, o := range outs[1:] {
		if !slices.Equal(o, got) {
			t.Fatal("concurrent outputs differ")
		}
	}
	copied := 0
	for pg := range uint32(len(p.copy)+pageWords-1) / pageWords {
		if p.copied[pg/32].Load()&(1<<(pg%32)) == 0 {
			continue
		}
		copied++
		lo, hi := int(pg)*pageWords, min(int(pg+1)*pageWords, len(p.file))
		if !slices.Equal(p.copy[lo:hi], p.file[lo:hi]) {
			t.Fatalf("page %d: copy differs from the file's words", pg)
		}
	}
	if pages := (len(p.file) + pageWords - 1) / pageWords; copied == 0 || copied > pages/2 {
		t.Errorf("%d of %d pages copied", copied, pages)
	}
	if held := base.PagesHeld(); held != copied*4*pageWords {
		t.Errorf("PagesHeld %d bytes, %d pages copied", held, copied)
	}
	heapVM, heapBase := debianBase(t)
	if want := dedup(heapVM, heapBase); !slices.Equal(got, want) {
		t.Error("output differs from a Base on the heap's")
	}
	// Dropped between deduplications (btf dedup --each), the copies are
	// made again, with the same output.
	base.DropPages()
	if held := base.PagesHeld(); held != 0 {
		t.Errorf("PagesHeld %d bytes after DropPages", held)
	}
	if again := dedup(vm, base); !slices.Equal(again, got) {
		t.Error("output after DropPages differs")
	}
	if base.PagesHeld() == 0 {
		t.Error("nothing copied again after DropPages")
	}
}
