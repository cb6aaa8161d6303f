package loader

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// TestLoadOnce runs one load of BenchmarkLoad in this process, the way
// and set that KMETA_LOADER_WAY and KMETA_LOADER_SET name, and prints the
// op's wall time, peak heap growth, bytes allocated and the process's
// peak RSS: bench/loader.sh runs it in fresh processes, alternating the
// ways, so that each pays every first-time cost (cilium/ebpf's feature
// probes, page faults) as a loader's process does once. Skipped unless
// KMETA_LOADER_WAY is set; "idle" prints the peak RSS of a process that
// loads nothing, "floor" times BenchmarkLoad's floor (kmeta's types made
// before the op).
func TestLoadOnce(t *testing.T) {
	wayName := os.Getenv("KMETA_LOADER_WAY")
	if wayName == "" {
		t.Skip("KMETA_LOADER_WAY not set: bench/loader.sh runs this")
	}
	if wayName == "idle" {
		fmt.Printf("LOADONCE way=idle set=- ns=0 peak-heap=0 alloc=0 hwm-kB=%d\n", vmHWM(t))
		return
	}
	needBPF(t)
	setName := os.Getenv("KMETA_LOADER_SET")
	var paths []string
	for _, s := range loadSets {
		if s.name == setName {
			paths = objectPaths(t, s.objs...)
		}
	}
	if paths == nil {
		t.Fatalf("KMETA_LOADER_SET=%q: no such set", setName)
	}
	var way *loadWay
	for i := range loadWays {
		if loadWays[i].name == wayName {
			way = &loadWays[i]
		}
	}
	if wayName == "floor" {
		w := floorWay(t, paths) // kmeta's types made here, before the op
		way = &w
	}
	if way == nil {
		t.Fatalf("KMETA_LOADER_WAY=%q: no such way", wayName)
	}
	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(allocs)
	before := allocs[0].Value.Uint64()
	start := time.Now()
	peak := peakHeap(func() { defer closeAll(way.load(t, paths)) })
	// the op's time includes closing the collections, which peakHeap
	// needs inside fn; closing takes microseconds
	elapsed := time.Since(start)
	metrics.Read(allocs)
	fmt.Printf("LOADONCE way=%s set=%s ns=%d peak-heap=%d alloc=%d hwm-kB=%d\n",
		wayName, setName, elapsed.Nanoseconds(), peak, allocs[0].Value.Uint64()-before, vmHWM(t))
}

// vmHWM returns the process's peak RSS in kB, from /proc/self/status.
func vmHWM(tb testing.TB) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var kb int
		if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
			return kb
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}
