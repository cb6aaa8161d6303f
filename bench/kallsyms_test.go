package bench

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
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
//   - Load: kallsyms.Load, reporting its ratio to the Floor of the same run;
//   - Retained: heap retained by a snapshot after GC, per symbol;
//   - Lookup: random addresses inside the text range, resolved with name.
func BenchmarkKallsyms(b *testing.B) {
	needKallsyms(b)
	var floor time.Duration
	b.Run("Floor", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 64<<10)
		start := time.Now()
		for b.Loop() {
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
		}
		floor = time.Since(start) / time.Duration(b.N)
	})
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			if _, err := kallsyms.Load(kallsymsPath, nil); err != nil {
				b.Fatal(err)
			}
		}
		if floor > 0 {
			per := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(per)/float64(floor), "x-floor")
		}
	})
	b.Run("Retained", benchRetained)
	b.Run("Lookup", func(b *testing.B) { benchLookup(b, false) })
	b.Run("LookupAppend", func(b *testing.B) { benchLookup(b, true) })
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
		addr := vm.Start + x%span
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
