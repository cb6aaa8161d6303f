package lazyfuzz_test

import (
	"strconv"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/btf/ext"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/input"
)

// FuzzParsers (issue 37, redteam8) runs the parsers of the strings that
// users give the CLI and the library on one mutated string: sizes
// (--max-input, KMETA_MAX_INPUT), BTF and CO-RE kinds, the --compat
// names of the C dumper and the deduplication, min's --types list, and
// kernel releases (dwarf2btf.CompatFor). Seeds: what the fixtures and the
// README spell. Never a panic; a size is never negative; a kind or a
// compat name it accepts reads back from its String.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		"1G", "64M", "512MiB", "4g", "100", "0", "1.5G", "9223372036854775807", "8E", "-1K",
		"STRUCT", "struct", "func_proto", "fwd", "ptr", "ENUM64", "byte_off", "type_id_target", "enumval_exists",
		"bpftool-7.5", "bpftool-7.1", "libbpf-1.8", "libbpf-1.1",
		"int,struct task_struct", "task_struct,sk_buff", "",
		"6.1.0-47-cloud-amd64", "6.18.44", "6.12.57+deb13-cloud-arm64", "7.3.0-rc1", "2.6.32-754.el6.x86_64", "6.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := input.ParseSize(s); err == nil && n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if k, ok := btf.ParseKind(s); ok {
			if back, ok := btf.ParseKind(k.String()); !ok || back != k {
				t.Fatalf("btf.ParseKind(%q) = %v, which reads back as %v, %v", s, k, back, ok)
			}
		}
		if k, ok := ext.ParseKind(s); ok {
			if back, ok := ext.ParseKind(k.String()); !ok || back != k {
				t.Fatalf("ext.ParseKind(%q) = %v, which reads back as %v, %v", s, k, back, ok)
			}
		}
		if c, err := cdump.ParseCompat(s); err == nil {
			if back, err := cdump.ParseCompat(c.String()); err != nil || back != c {
				t.Fatalf("cdump.ParseCompat(%q) = %v, which reads back as %v, %v", s, c, back, err)
			}
		}
		if c, err := dedup.ParseCompat(s); err == nil {
			if back, err := dedup.ParseCompat(c.String()); err != nil || back != c {
				t.Fatalf("dedup.ParseCompat(%q) = %v, which reads back as %v, %v", s, c, back, err)
			}
		}
		builder.ParseWant(s)
		_ = strconv.Quote(dwarf2btf.CompatFor(s).String())
	})
}
