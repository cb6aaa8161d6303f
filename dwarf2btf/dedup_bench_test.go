package dwarf2btf_test

import (
	"context"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
)

// BenchmarkEncodeFile encodes and deduplicates $KMETA_DWARF_FILE (a vmlinux
// or a module, on the base BTF $KMETA_DWARF_BASE if set), as kmeta btf
// encode does, for profiles (-cpuprofile, -memprofile); see BENCH.md.
func BenchmarkEncodeFile(b *testing.B) {
	path := os.Getenv("KMETA_DWARF_FILE")
	if path == "" {
		b.Skip("set KMETA_DWARF_FILE to an ELF file with DWARF (and KMETA_DWARF_BASE for a module)")
	}
	var opts dwarf2btf.Options
	if p := os.Getenv("KMETA_DWARF_BASE"); p != "" {
		base, err := btf.Open(context.Background(), p, btf.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer base.Close()
		opts.Base = base
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dwarf2btf.EncodeFile(context.Background(), path, opts, builder.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
