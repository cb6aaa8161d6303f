package loader

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/kernel"
)

// loadSets are the workloads of BenchmarkLoad: objects whose programs
// need the kernel's types only for their CO-RE relocations, and those
// with the two whose tp_btf programs make cilium/ebpf look their attach
// targets up in the whole vmlinux BTF whatever KernelTypes says.
var loadSets = []struct {
	name string
	objs []string
}{
	{"kprobe-tp", []string{"kprobe", "sched", "net"}},
	{"all", objects},
}

// loadWay loads the collections of the objects at paths into the kernel,
// one way, and returns them.
type loadWay struct {
	name string
	load func(tb testing.TB, paths []string) []*ebpf.Collection
}

var loadWays = []loadWay{
	// cilium/ebpf's default: no options, so every collection gets a fresh
	// btf.Cache, which reads the kernel's BTF (LoadKernelSpec, and every
	// module's) for the relocations.
	{"cilium", func(tb testing.TB, paths []string) []*ebpf.Collection {
		return loadAll(tb, paths, func() ebpf.CollectionOptions { return ebpf.CollectionOptions{} })
	}},
	// cilium/ebpf with one btf.Cache shared by the collections, as its
	// documentation advises for several loads: the kernel's BTF once.
	{"cilium-cache", func(tb testing.TB, paths []string) []*ebpf.Collection {
		c := cbtf.NewCache()
		return loadAll(tb, paths, func() ebpf.CollectionOptions { return ebpf.CollectionOptions{Cache: c} })
	}},
	// kmeta's minimal BTF of the running kernel for all the objects'
	// relocations, computed once, as KernelTypes of every collection.
	{"kmeta", func(tb testing.TB, paths []string) []*ebpf.Collection {
		opts, err := ProgramOptions(context.Background(), kernel.Options{}, paths...)
		if err != nil {
			tb.Fatal(err)
		}
		return loadAll(tb, paths, func() ebpf.CollectionOptions { return ebpf.CollectionOptions{Programs: opts} })
	}},
	// kmeta's types, and one btf.Cache shared by the collections for
	// what cilium/ebpf looks up in the kernel's BTF besides relocations
	// (tp_btf attach targets).
	{"kmeta-cache", func(tb testing.TB, paths []string) []*ebpf.Collection {
		opts, err := ProgramOptions(context.Background(), kernel.Options{}, paths...)
		if err != nil {
			tb.Fatal(err)
		}
		c := cbtf.NewCache()
		return loadAll(tb, paths, func() ebpf.CollectionOptions { return ebpf.CollectionOptions{Programs: opts, Cache: c} })
	}},
}

// floorWay loads with kmeta's types computed before the op: what the
// loads cost cilium/ebpf and the kernel without reading any kernel BTF.
func floorWay(tb testing.TB, paths []string) loadWay {
	opts, err := ProgramOptions(context.Background(), kernel.Options{}, paths...)
	if err != nil {
		tb.Fatal(err)
	}
	c := cbtf.NewCache()
	return loadWay{"floor", func(tb testing.TB, paths []string) []*ebpf.Collection {
		return loadAll(tb, paths, func() ebpf.CollectionOptions { return ebpf.CollectionOptions{Programs: opts, Cache: c} })
	}}
}

// loadAll reads the objects at paths and loads them with the options
// opts gives, in order.
func loadAll(tb testing.TB, paths []string, opts func() ebpf.CollectionOptions) []*ebpf.Collection {
	colls := make([]*ebpf.Collection, 0, len(paths))
	for _, p := range paths {
		spec, err := ebpf.LoadCollectionSpec(p)
		if err != nil {
			tb.Fatal(err)
		}
		coll, err := ebpf.NewCollectionWithOptions(spec, opts())
		if err != nil {
			tb.Fatal(err)
		}
		colls = append(colls, coll)
	}
	return colls
}

func closeAll(colls []*ebpf.Collection) {
	for _, c := range colls {
		c.Close()
	}
}

// BenchmarkLoad loads several CO-RE objects into the running kernel,
// from their files to programs the verifier accepted, in the ways of
// loadWays, and closes them (not timed); "floor" is the same loads with
// kmeta's types made before the op, and a btf.Cache that holds the
// kernel's BTF for tp_btf attach targets after the first op. Each op pays for the kernel's
// types afresh: cilium/ebpf v0.22 keeps no process-wide kernel BTF, and
// kmeta's way opens vmlinux again. Besides time and allocation, peak-heap-B
// is the most the live heap grew during one op (sampled every 20 µs by
// another goroutine, GOGC as set), and retained-B what the op's result
// keeps on the heap (the collections, the options).
func BenchmarkLoad(b *testing.B) {
	needBPF(b)
	for _, set := range loadSets {
		paths := objectPaths(b, set.objs...)
		for _, way := range append(loadWays, floorWay(b, paths)) {
			b.Run(set.name+"/"+way.name, func(b *testing.B) {
				op := func() []*ebpf.Collection { return way.load(b, paths) }
				closeAll(op()) // cilium/ebpf's feature probes, once per process
				var colls []*ebpf.Collection
				peak := peakHeap(func() { colls = op() })
				retained := heapLive()
				closeAll(colls)
				retained -= heapLive()
				b.ReportAllocs()
				for b.Loop() {
					colls := op()
					b.StopTimer()
					closeAll(colls)
					b.StartTimer()
				}
				b.ReportMetric(float64(peak), "peak-heap-B")
				b.ReportMetric(float64(retained), "retained-B")
			})
		}
	}
}

// heapObjects is the bytes of heap objects, live or not yet swept.
var heapObjects = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func readHeap() uint64 {
	metrics.Read(heapObjects)
	return heapObjects[0].Value.Uint64()
}

// heapLive is the live heap after a full collection.
func heapLive() uint64 {
	runtime.GC()
	return readHeap()
}

// peakHeap runs fn and returns how much the heap grew at most while it
// ran, above the live heap before it.
func peakHeap(fn func()) uint64 {
	base := heapLive()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		peak := base
		t := time.NewTicker(20 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
				peak = max(peak, readHeap())
			}
		}
	}()
	fn()
	end := readHeap()
	close(stop)
	return max(<-done, end) - base
}

// BenchmarkProgramOptions is kmeta's part of the "kmeta" way: the objects
// opened, the running kernel's vmlinux opened lazily, the minimal BTF
// made and marshalled, and read back by cilium/ebpf.
func BenchmarkProgramOptions(b *testing.B) {
	if _, err := kernel.OpenVmlinux(); err != nil {
		b.Skip(err)
	}
	for _, set := range loadSets {
		paths := objectPaths(b, set.objs...)
		b.Run(set.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ProgramOptions(context.Background(), kernel.Options{}, paths...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
