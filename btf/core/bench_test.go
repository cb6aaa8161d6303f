package core_test

import (
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
)

// BenchmarkMinimalFile is the work of "kmeta btf min FILE --obj prog.bpf.o"
// without the process: open the object, open (map) the host vmlinux BTF
// lazily with the candidate search made in the walk, resolve, build and
// marshal the minimal BTF. It guards the lazy open and the marking.
func BenchmarkMinimalFile(b *testing.B) {
	dir := b.TempDir()
	files := writeAll(b, dir, map[string]string{"host": kernels["host-6.18"]}, ".btf")
	objs := writeAll(b, dir, map[string]string{"prog": objects["prog"]}, ".o")
	b.ReportAllocs()
	for b.Loop() {
		obj, err := bpfelf.Open(context.Background(), objs["prog"], bpfelf.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := btf.Open(context.Background(), files["host"], btf.Options{Lazy: true, Flavors: core.TargetQuery(obj.CORE())})
		if err != nil {
			b.Fatal(err)
		}
		bld, err := core.TypesFor(context.Background(), core.NewTarget(s), []core.Object{obj.CORE()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bld.Marshal(builder.Options{}); err != nil {
			b.Fatal(err)
		}
		obj.Close()
		s.Close()
	}
}

// BenchmarkResolve resolves prog.bpf.o against a parsed kernel BTF, with
// a new Target each time (so the candidate scan is included).
func BenchmarkResolve(b *testing.B) {
	s := kernel(b, "host-6.18")
	obj := object(b, "prog")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := core.Resolve(context.Background(), obj, core.NewTarget(s)); err != nil {
			b.Fatal(err)
		}
	}
}
