package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"

	"github.com/kmeta-dev/kmeta/btf"
)

// tuneRuntime says whether a command may set the process's collector
// (setGC) and soft memory limit (limitMemory). Both are the whole
// process's: kmeta runs one command, but a test process runs hundreds in
// process, many at once, and the limit a small input set (12 MB for a
// dump of a few KB) stayed on for every later test, whose process holds
// far more: its collector then ran without pause, and timed waits
// elsewhere in the process stretched. The tests turn it off (TestMain);
// the tests of the real binary's memory keep it.
var tuneRuntime = true

// setGC sets the collector's GOGC to percent for one command, unless the
// user set GOGC, and returns the function that restores the previous
// setting. Commands whose heap is all live until they exit collect less
// often (layout, diff); the DWARF encoder, whose peak memory is measured
// against pahole's, collects more often.
func setGC(percent int) (restore func()) {
	if !tuneRuntime || os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}

// readSlack is what a reading command may use beyond twice its input
// (the README's memory rule: 2x the input plus 20 MB), less the 6 MB or
// so of the binary and the runtime that no limit governs, and 2 MB for
// what the collector lets past a soft limit.
const readSlack = 12 << 20

// boundMemory sets the runtime's soft memory limit of a reading command
// (dump, find, layout, diff, min, core) to the size of the BTF it read,
// specs and their bases, plus readSlack. The BTF itself is mapped (a
// file) or held outside the Go heap (standard input, what a compressed
// file inflates to), so the process stays within twice its input plus
// 20 MB while what it keeps alive fits: the collector runs more often as
// the heap nears the limit, and GOGC's headroom (setGC) shrinks. A user's
// GOMEMLIMIT wins. Nil specs are skipped; a base is counted with each
// spec that names it.
func boundMemory(specs ...*btf.Spec) { limitMemory(btfSize(specs...)) }

// btfSize returns the bytes of BTF of specs and their bases.
func btfSize(specs ...*btf.Spec) int64 {
	var n int64
	for _, s := range specs {
		for ; s != nil; s = s.Base() {
			n += ownBTFSize(s)
		}
	}
	return n
}

// ownBTFSize is the size of s's own BTF, header and sections, without
// its base's.
func ownBTFSize(s *btf.Spec) int64 {
	return int64(s.HeaderLen() + len(s.TypeSection()) + s.StringsLen())
}

// dropPagesFrom is the input size from which a reading command gives
// back the binary's start-up pages (dropStartupPages): 2 to 3 MB that
// would otherwise count against its bound when the heap and the mapped
// input fill it, for about 3 ms of page faults (5-6% of a find on a
// distribution's vmlinux; cmd/kmeta/BENCH.md).
const dropPagesFrom = 4 << 20

// limitMemory sets the runtime's soft memory limit to n bytes plus
// readSlack and the runtime's untouched reserve (untouchedReserve), unless
// the user set GOMEMLIMIT, and gives back the start-up pages of a command
// that read at least dropPagesFrom.
func limitMemory(n int64) {
	if n >= dropPagesFrom {
		dropStartupPages()
	}
	if !tuneRuntime || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(n + readSlack + untouchedReserve())
}

// untouchedReserve is the memory that the runtime's soft limit counts but
// the process never touches: the memory profiler's table of stack hashes
// (/memory/classes/profiling/buckets, 1.4 MB: 179,999 pointers, runtime
// mprof.go's buckhash), mapped at the first sampled allocation, which the
// runtime makes during its own start before it reads that kmeta links no
// profile and stops sampling (cmd/kmeta/BENCH.md, "The floor"). Only the
// pages of the few buckets sampled then are resident. Counted in the
// limit, it took 1.4 MB of readSlack's 12 from the heap, and a command
// whose live heap neared the limit collected over and over (btf layout
// --json of a 4,095-deep struct of a 4,095-wide one: 21 collections, 1.5x
// the CPU time; cmd/kmeta/BENCH.md, "The soft limit and the stacks").
// Goroutine stacks are counted, as they should be: a deep recursion
// touches its stack.
func untouchedReserve() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/profiling/buckets:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// freeHeapFrom is the heap, in bytes, from which freeHeap collects even
// if the collector has not run: the Go runtime's own smallest heap goal
// (4 MB at GOGC=100), below which it does not collect either.
const freeHeapFrom = 4 << 20

// freeHeap gives the heap's garbage and free pages back to the system
// (debug.FreeOSMemory), unless the collector has not run yet and the heap
// holds less than freeHeapFrom bytes of objects, live or garbage, and of
// free spans not yet returned. The encoders call it between encoding and
// deduplicating, where their workers' buffers are garbage
// (dwarf2btf.Options.Encoded). A first collection on a small heap frees
// less than it costs: it faults in the collector's code and the tables
// of every goroutine's frames, 0.8 MB for a heap of 1 MB, and doubles a
// small encode's CPU time (cmd/kmeta/BENCH.md, "Small heaps are not
// collected by force"); once the collector has run, those are resident.
func freeHeap() {
	s := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	var v [3]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	if worthFreeing(v[0], v[1]+v[2]) {
		debug.FreeOSMemory()
	}
}

// worthFreeing reports whether a forced collection pays after cycles
// collections, with heap bytes of objects and free spans (freeHeap).
func worthFreeing(cycles, heap uint64) bool {
	return cycles > 0 || heap >= freeHeapFrom
}
