package bench

import (
	"bytes"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/kallsyms"
)

// kallsymsPath is the input of every kallsyms benchmark: this machine's
// live symbols.
const kallsymsPath = "/proc/kallsyms"

func needKallsyms(b *testing.B) {
	b.Helper()
	data, err := os.ReadFile(kallsymsPath)
	if err != nil {
		b.Skipf("%s unreadable: %v", kallsymsPath, err)
	}
	if i := bytes.IndexByte(data, ' '); i <= 0 || bytes.Count(data[:i], []byte("0")) == i {
		b.Skip("kallsyms addresses are hidden (kptr_restrict); run as root")
	}
}

// BenchmarkKallsyms measures, in one run, on /proc/kallsyms:
//
//   - Floor: just reading the file (the kernel's time to format it);
//   - Load: kallsyms.Load. Its x-floor metric is the median, over its
//     iterations, of the Load's time divided by the time of a Floor read
//     made just before it (untimed): pairs measured seconds apart see the
//     same machine load, which the Floor and Load sub-benchmarks, run one
//     after the other, need not;
//   - Retained: heap retained by a snapshot after GC, per symbol;
//   - Lookup, LookupAppend: random addresses inside the text range,
//     resolved to module, name and offset. LookupAppend into a reused
//     buffer is the path for profilers; Lookup allocates the name.
//
// Floor and Load also report cpu-ms/op: the process's CPU time (user and
// system, all threads) per operation, which other machines' load barely
// changes.
func BenchmarkKallsyms(b *testing.B) {
	needKallsyms(b)
	b.Run("Floor", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 64<<10)
		cpu := cpuTime()
		for b.Loop() {
			readFloor(b, buf)
		}
		b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
	})
	b.Run("Load", benchLoad)
	b.Run("Retained", benchRetained)
	b.Run("Lookup", func(b *testing.B) { benchLookup(b, false) })
	b.Run("LookupAppend", func(b *testing.B) { benchLookup(b, true) })
}

// readFloor reads kallsymsPath to its end and returns how long that took.
func readFloor(b *testing.B, buf []byte) time.Duration {
	start := time.Now()
	f, err := os.Open(kallsymsPath)
	if err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := f.Read(buf); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
	}
	f.Close()
	return time.Since(start)
}

func benchLoad(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 64<<10)
	var ratios []float64
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		floor := readFloor(b, buf)
		b.StartTimer()
		c0, start := cpuTime(), time.Now()
		if _, err := kallsyms.Load(kallsymsPath, nil); err != nil {
			b.Fatal(err)
		}
		ratios = append(ratios, float64(time.Since(start))/float64(floor))
		cpu += cpuTime() - c0
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-floor")
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func benchRetained(b *testing.B) {
	b.ReportAllocs()
	var perSym float64
	for b.Loop() {
		before := heapAlloc()
		s, err := kallsyms.Load(kallsymsPath, nil)
		if err != nil {
			b.Fatal(err)
		}
		after := heapAlloc()
		perSym = float64(after-before) / float64(s.Stats().Symbols)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perSym, "B/sym")
}

// benchLookup resolves random addresses of vmlinux's text to module,
// symbol name and offset: with a new name string (Lookup) or appending the
// name to a reused buffer (LookupAppend).
func benchLookup(b *testing.B, appendName bool) {
	s, err := kallsyms.Load(kallsymsPath, nil)
	if err != nil {
		b.Fatal(err)
	}
	vm, err := s.Module(kallsyms.Vmlinux)
	if err != nil {
		b.Fatal(err)
	}
	// xorshift64 makes the addresses on the fly: a table of them would
	// compete with the snapshot for the cache.
	x, span := rand.Uint64()|1, vm.End-vm.Start
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		hi, _ := bits.Mul64(x, span) // x%span without a 64-bit division
		addr := vm.Start + hi
		if appendName {
			sym, name, err := s.LookupAppend(buf[:0], addr)
			if err != nil || len(name) == 0 || sym.Module == "" {
				b.Fatal(err)
			}
			continue
		}
		sym, err := s.Lookup(addr)
		if err != nil || sym.Name == "" {
			b.Fatal(err)
		}
	}
}
