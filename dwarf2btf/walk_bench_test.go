package dwarf2btf

import (
	"bytes"
	"debug/elf"
	"os"
	"testing"
)

// BenchmarkWalk compares walking every DIE of a file's .debug_info with
// this package's reader and with debug/dwarf. The file is
// $KMETA_DWARF_FILE (an uncompressed vmlinux or .ko); see BENCH.md.
func BenchmarkWalk(b *testing.B) {
	data := benchFile(b)
	b.Run("reader", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o, err := openObject(data)
			if err != nil {
				b.Fatal(err)
			}
			defer o.free()
			d := &dwarfData{order: o.order, info: o.debug[".debug_info"], abbrev: o.debug[".debug_abbrev"], str: o.debug[".debug_str"]}
			us, err := d.units()
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			var x die
			for _, u := range us {
				r, err := d.newUnitReader(u, nil)
				if err != nil {
					b.Fatal(err)
				}
				for r.c.pos < uint64(u.end) {
					if r.next(&x) {
						n++
					} else if r.c.err != nil {
						b.Fatal(r.c.err)
					}
				}
			}
			b.ReportMetric(float64(n), "DIEs")
		}
	})
	b.Run("debug_dwarf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, err := elf.NewFile(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			d, err := f.DWARF()
			if err != nil {
				b.Fatal(err)
			}
			r := d.Reader()
			n := 0
			for {
				e, err := r.Next()
				if err != nil {
					b.Fatal(err)
				}
				if e == nil {
					break
				}
				if e.Tag != 0 {
					n++
				}
			}
			b.ReportMetric(float64(n), "DIEs")
		}
	})
}

// benchFile returns the contents of $KMETA_DWARF_FILE, the input of the
// benchmarks that read an ELF file with DWARF (BENCH.md), or skips b.
func benchFile(b *testing.B) []byte {
	b.Helper()
	path := os.Getenv("KMETA_DWARF_FILE")
	if path == "" {
		b.Skip("set KMETA_DWARF_FILE to an ELF file with DWARF")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
