package bench

import (
	"bytes"
	"cmp"
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
//   - Parse: Load's own work, parsing the file's contents from memory;
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
	b.Run("Parse", benchParse)
	b.Run("Retained", benchRetained)
	b.Run("Lookup", func(b *testing.B) { benchLookup(b, false) })
	b.Run("LookupAppend", func(b *testing.B) { benchLookup(b, true) })
	b.Run("LookupAppendHot", benchLookupHot)
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
		// As kmeta ksym and a profiler load it: reading beside parsing.
		if _, err := kallsyms.ReadFile(kallsymsPath, kallsyms.Options{Workers: runtime.GOMAXPROCS(0)}); err != nil {
			b.Fatal(err)
		}
		ratios = append(ratios, float64(time.Since(start))/float64(floor))
		cpu += cpuTime() - c0
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-floor")
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}

// benchParse is Load's own work without the kernel's: Parse of the file's
// contents from memory, on one goroutine. During Load this work runs on
// the other core while the kernel formats the file, and slows the kernel
// down: on this VM any busy second core makes the floor read ~40% slower.
func benchParse(b *testing.B) {
	data, err := os.ReadFile(kallsymsPath)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := kallsyms.Parse(bytes.NewReader(data), kallsyms.Options{}); err != nil {
			b.Fatal(err)
		}
	}
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
		s, err := kallsyms.ReadFile(kallsymsPath, kallsyms.Options{})
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
//
// The addresses are uniform over the bytes that vmlinux's symbols cover,
// as a profiler's samples of the kernel's code would be: vmlinux's range
// also spans a few gaps between its text sections (on this kernel 54% of
// the range lies between _etext and _sinittext), which resolve to no
// symbol (kallsyms.ErrNotText) and are left out.
func benchLookup(b *testing.B, appendName bool) {
	s, err := kallsyms.ReadFile(kallsymsPath, kallsyms.Options{})
	if err != nil {
		b.Fatal(err)
	}
	text := textOf(b, s)
	// xorshift64 makes the addresses on the fly: a table of them would
	// compete with the snapshot for the cache.
	x := rand.Uint64() | 1
	buf := make([]byte, 0, 1024)
	var sym kallsyms.Symbol
	b.ReportAllocs()
	for b.Loop() {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		off, _ := bits.Mul64(x, text.len) // x%len without a 64-bit division
		addr := text.at(off)
		if appendName {
			name, err := s.LookupAppend(buf[:0], &sym, addr)
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

// benchLookupHot is LookupAppend on 256 random addresses of vmlinux's
// text, over and over, as a profiler sees a busy kernel's few hot
// functions: the snapshot's blocks that they touch stay in the cache.
func benchLookupHot(b *testing.B) {
	s, err := kallsyms.ReadFile(kallsymsPath, kallsyms.Options{})
	if err != nil {
		b.Fatal(err)
	}
	text := textOf(b, s)
	addrs := make([]uint64, 256)
	for i := range addrs {
		addrs[i] = text.at(rand.Uint64N(text.len))
	}
	buf := make([]byte, 0, 1024)
	var sym kallsyms.Symbol
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		name, err := s.LookupAppend(buf[:0], &sym, addrs[i&255])
		if err != nil || len(name) == 0 || sym.Module == "" {
			b.Fatal(err)
		}
		i++
	}
}

// run is a stretch of addresses [start, start+len).
type run struct{ start, len uint64 }

// text is the part of vmlinux's range that its symbols cover: runs,
// widest first, of len bytes in all.
type text struct {
	runs []run
	len  uint64
}

// at returns the address at offset off < t.len of the runs laid end to
// end.
func (t text) at(off uint64) uint64 {
	r := 0
	for off >= t.runs[r].len {
		off -= t.runs[r].len
		r++
	}
	return t.runs[r].start + off
}

// maxSymbolGap is the widest distance between two symbols that textOf
// takes for code; wider ones are gaps between sections (the largest
// function of this kernel spans 21 KiB).
const maxSymbolGap = 1 << 20

// textOf returns the stretches of vmlinux's range that its symbols cover,
// the gaps between sections left out, and so are the addresses that
// resolve to no symbol (kallsyms.ErrNotText: from _etext to the next text
// symbol); the last symbol of a stretch covers the rest of its page.
func textOf(b *testing.B, s *kallsyms.Snapshot) text {
	var addrs []uint64
	for sym := range s.All() {
		if sym.Module == kallsyms.Vmlinux {
			addrs = append(addrs, sym.Addr)
		}
	}
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	if len(addrs) == 0 {
		b.Fatal("no vmlinux symbols")
	}
	var t text
	start := addrs[0]
	for i, a := range addrs {
		last := i+1 == len(addrs) || addrs[i+1]-a > maxSymbolGap // of a stretch
		next := a | 0xfff + 1
		if !last {
			next = addrs[i+1]
		}
		if end := textEnd(s, a, next); last || end < next {
			if end > start {
				t.runs = append(t.runs, run{start, end - start})
				t.len += end - start
			}
			if i+1 < len(addrs) {
				start = addrs[i+1]
			}
		}
	}
	// The widest first, so that at usually stops at once.
	slices.SortFunc(t.runs, func(p, q run) int { return cmp.Compare(q.len, p.len) })
	return t
}

// textEnd returns the first address of [lo, hi) that resolves to no
// symbol, or hi: between two symbols, those addresses are a suffix.
func textEnd(s *kallsyms.Snapshot, lo, hi uint64) uint64 {
	if _, err := s.Lookup(hi - 1); err == nil {
		return hi
	}
	for lo < hi {
		m := lo + (hi-lo)/2
		if _, err := s.Lookup(m); err == nil {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
