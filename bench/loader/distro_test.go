package loader

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cilium/ebpf"
	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kernel"
)

// relocateAll applies cilium/ebpf's CO-RE relocation to every program of
// specs against targets, as its loader does before loading them.
func relocateAll(tb testing.TB, specs []*ebpf.CollectionSpec, targets []*cbtf.Spec) {
	for _, spec := range specs {
		for _, p := range spec.Programs {
			var relos []*cbtf.CORERelocation
			iter := p.Instructions.Iterate()
			for iter.Next() {
				if r := cbtf.CORERelocationMetadata(iter.Ins); r != nil {
					relos = append(relos, r)
				}
			}
			var b cbtf.Builder
			if _, err := cbtf.CORERelocate(relos, targets, binary.LittleEndian, b.Add); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// BenchmarkRelocateDistro is the kernel-types part of BenchmarkLoad on a
// distribution kernel with module BTF, which this VM lacks: the Debian
// 6.1 kernel and its 1,121 module BTFs in a fake sysfs (tmpfs), the
// kprobe-tp objects' programs relocated by cilium/ebpf, nothing loaded.
// "cilium" is what its default load does for each collection
// (applyRelocations with a fresh btf.Cache): the vmlinux BTF (read into
// the heap here, 4.1 MB; LoadKernelSpec maps the real sysfs file), every
// module's BTF on it, and the relocation against all of them. "kmeta"
// is ProgramOptions on the fake sysfs, then the relocation against its
// minimal BTF; it reads no module, since vmlinux has every name the
// objects relocate. The objects are parsed before the loop.
func BenchmarkRelocateDistro(b *testing.B) {
	dir := testfixtures.SharedFakeSysfs(b)
	btfDir := filepath.Join(dir, "kernel", "btf")
	ents, err := os.ReadDir(btfDir)
	if err != nil {
		b.Fatal(err)
	}
	var mods []string
	for _, e := range ents {
		if e.Name() != "vmlinux" {
			mods = append(mods, e.Name())
		}
	}
	slices.Sort(mods)
	paths := objectPaths(b, "kprobe", "sched", "net")
	var specs []*ebpf.CollectionSpec
	for _, p := range paths {
		spec, err := ebpf.LoadCollectionSpec(p)
		if err != nil {
			b.Fatal(err)
		}
		specs = append(specs, spec)
	}
	cilium := func(b testing.TB) {
		// one collection's worth per object, as NewCollection does
		for _, spec := range specs {
			base, err := cbtf.LoadSpec(filepath.Join(btfDir, "vmlinux"))
			if err != nil {
				b.Fatal(err)
			}
			targets := []*cbtf.Spec{base}
			for _, m := range mods {
				s, err := cbtf.LoadSplitSpec(filepath.Join(btfDir, m), base)
				if err != nil {
					b.Fatal(err)
				}
				targets = append(targets, s)
			}
			relocateAll(b, []*ebpf.CollectionSpec{spec}, targets)
		}
	}
	kmeta := func(b testing.TB) {
		opts, err := ProgramOptions(context.Background(), kernel.Options{Sysfs: dir}, paths...)
		if err != nil {
			b.Fatal(err)
		}
		relocateAll(b, specs, append([]*cbtf.Spec{opts.KernelTypes}, opts.ExtraRelocationTargets...))
	}
	for _, way := range []struct {
		name string
		op   func(testing.TB)
	}{{"cilium", cilium}, {"kmeta", kmeta}} {
		b.Run(way.name, func(b *testing.B) {
			peak := peakHeap(func() { way.op(b) })
			b.ReportAllocs()
			for b.Loop() {
				way.op(b)
			}
			b.ReportMetric(float64(peak), "peak-heap-B")
		})
	}
}
