package wire

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// FuzzIter walks arbitrary bytes as a type section: the walk must not
// panic, every record it yields must be whole and sized as Sizes says, and
// the visitors must stay inside the record and agree between bytes and
// words. The seeds are the type sections of BTF that bpftool wrote
// (testdata/core/bpftool, "bpftool gen min_core_btf").
func FuzzIter(f *testing.F) {
	seeds, _ := filepath.Glob("../../../testdata/core/bpftool/*.btf")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		h, err := ParseHeader(b, binary.LittleEndian)
		if err != nil {
			f.Fatalf("%s: %v", p, err)
		}
		body := b[h.HdrLen:]
		f.Add(body[h.TypeOff : h.TypeOff+h.TypeLen])
	}
	if len(seeds) == 0 {
		f.Add([]byte(rec(1, Info(KindStruct, 1, false), 4, 2, 3, 0)))
	}
	sizes := DefaultLayouts.Sizes()
	f.Fuzz(func(t *testing.T, b []byte) {
		types := append([]byte(nil), b...) // on the heap, so aligned as a Spec's
		it := sizes.Iter(types)
		prev := uint32(0)
		for it.Next() {
			r := it.Rec
			if it.Off != prev || uint32(len(r)) != sizes.Of(r.Info()) || it.Off+uint32(len(r)) > uint32(len(types)) {
				t.Fatalf("record at %d of %d bytes (after %d) in a %d-byte section", it.Off, len(r), prev, len(types))
			}
			prev = it.Off + uint32(len(r))
			var at []uint32
			r.ForRefs(func(o uint32) { at = append(at, o) })
			r.ForNames(func(o uint32) { at = append(at, o) })
			for _, o := range at {
				if o%4 != 0 || o+4 > uint32(len(r)) {
					t.Fatalf("%v record of %d bytes: visited offset %d", r.Kind(), len(r), o)
				}
			}
			w := WordRecord(make([]uint32, len(r)/4))
			for i := range w {
				w[i] = Word(r, uint32(4*i))
			}
			n := 0
			w.ForRefs(func(uint32) { n++ })
			w.ForNames(func(uint32) { n++ })
			if n != len(at) {
				t.Fatalf("%v record: %d positions as words, %d as bytes", r.Kind(), n, len(at))
			}
		}
		if it.Done() != (prev == uint32(len(types))) {
			t.Fatalf("Done %v after a walk to %d of %d bytes", it.Done(), prev, len(types))
		}
	})
}
