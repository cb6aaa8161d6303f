package dedup

import (
	"context"
	"encoding/binary"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestBasePages deduplicates split BTF that repeats a few hundred types
// of its base (redteam10's base-copies) on a vmlinux mapped from a file:
// the Base reads the records it compares from its page copies
// (basePages), which hold the file's words, and copies only the pages
// read, not the whole type section (BENCH.md, "A split input that
// repeats its base"), also when Mergers copy them at once. The output is
// the one of a Base on the heap.
//
// The file in big endian is swapped in place in its mapping, and its
// records then given back to the file (btfmem.LastReader, DoneReading):
// the pages are swapped as they are copied, and every record reads as
// the heap Base's.
func TestBasePages(t *testing.T) {
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	h, err := wire.ParseHeader(raw, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("little", func(t *testing.T) { testBasePages(t, raw, raw, false) })
	t.Run("big", func(t *testing.T) { testBasePages(t, raw, wire.Swap(raw, h), true) })
}

func testBasePages(t *testing.T, raw, file []byte, swapped bool) {
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	vm, err := btf.Open(context.Background(), path, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	btfmem.LastReader(vm) // as the CLI: only the Base reads the records
	base, err := NewBase(vm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := base.pages
	if p == nil {
		t.Skip("the vmlinux is not read in place from its mapping here")
	}
	if p.swapped != swapped {
		t.Fatalf("basePages.swapped = %v", p.swapped)
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
		want := slices.Clone(p.file[lo:hi])
		if swapped {
			for i, w := range want {
				want[i] = bits.ReverseBytes32(w)
			}
		}
		if !slices.Equal(p.copy[lo:hi], want) {
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
	for id := uint32(1); id <= base.last; id++ {
		if !slices.Equal(base.rec(id), heapBase.rec(id)) {
			t.Fatalf("record [%d] differs from the heap Base's", id)
		}
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

// TestBasePagesKeepsSpec checks that a Base made on a big-endian file's
// Spec that its owner did not mark (btfmem.LastReader) leaves the Spec's
// records readable: btf encode with the distilled_base feature, and
// btfids' Finalize, read the base's Spec after making a Base on it.
func TestBasePagesKeepsSpec(t *testing.T) {
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	h, err := wire.ParseHeader(raw, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(path, wire.Swap(raw, h), 0o644); err != nil {
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
	if base.pages != nil {
		t.Error("the records of an unmarked Spec went to page copies")
	}
	for _, id := range []btf.TypeID{1, btf.TypeID(base.last / 2), btf.TypeID(base.last)} {
		typ, err := vm.TypeByID(id)
		if err != nil {
			t.Fatalf("after NewBase: %v", err)
		}
		want, _ := wire.Words(typ.Record())
		if got := base.rec(uint32(id)); len(want) == 0 || !slices.Equal([]uint32(got), want) {
			t.Errorf("type %d: the Base's record differs from the Spec's", id)
		}
	}
}
