//go:build linux

package live

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
)

// cpuNow returns the process's user plus system CPU time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU per op since start, and per event
// when each op is n events.
func reportCPU(b *testing.B, start time.Duration, events int) {
	cpu := float64(cpuNow()-start) / float64(b.N)
	b.ReportMetric(cpu, "cpu-ns/op")
	if events > 0 {
		b.ReportMetric(cpu/float64(events), "cpu-ns/event")
	}
}

// hostSymbolizer opens a Symbolizer over the host fixture (122k symbols,
// written to a file) with a fake ksymbol reader and 32 BPF programs.
func hostSymbolizer(b *testing.B) *Symbolizer {
	path := filepath.Join(b.TempDir(), "kallsyms")
	if err := os.WriteFile(path, ksymtest.ReadFixture(b, "../testdata/host-6.18.44.kallsyms.gz"), 0o644); err != nil {
		b.Fatal(err)
	}
	sym, err := NewSymbolizer(Options{Kallsyms: path, NoSysfs: true, KsymEvents: newFakeKsyms()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sym.Close() })
	var evs []KsymEvent
	for i := range 32 {
		evs = append(evs, add(fmt.Sprintf("bpf_prog_6deef7357e7b4530_p%d", i), 0xffffffffc0100000+uint64(i)*0x100, 0x80, 0))
	}
	sym.applyKsyms(evs)
	return sym
}

// BenchmarkKsymPatch applies one program's add event and then its remove
// event, each a batch of its own (a new snapshot each), to a Symbolizer
// of the host's 122k symbols and 32 BPF programs: the work a ksymbol
// event costs, against BenchmarkKsymReload's.
func BenchmarkKsymPatch(b *testing.B) {
	sym := hostSymbolizer(b)
	a := []KsymEvent{add("bpf_prog_6deef7357e7b4530_new", 0xffffffffc0200000, 0x40, 0)}
	r := []KsymEvent{remove("bpf_prog_6deef7357e7b4530_new", 0xffffffffc0200000, 0x40, 0)}
	b.ReportAllocs()
	start := cpuNow()
	for b.Loop() {
		sym.applyKsyms(a)
		sym.applyKsyms(r)
	}
	reportCPU(b, start, 2)
}

// BenchmarkKsymReload is the full reload that an event would cost without
// ksymbol events: the host fixture's 122k symbols reread from a file
// (Proc: from /proc/kallsyms, where the kernel's formatting adds its
// system time).
func BenchmarkKsymReload(b *testing.B) {
	b.Run("File", func(b *testing.B) {
		sym := hostSymbolizer(b)
		b.ReportAllocs()
		start := cpuNow()
		for b.Loop() {
			if err := sym.Reload("bench"); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, start, 0)
	})
	b.Run("Proc", func(b *testing.B) {
		sym, err := NewSymbolizer(Options{NoSysfs: true, NoKsymEvents: true})
		if err != nil {
			b.Skip(err)
		}
		defer sym.Close()
		start := cpuNow()
		for b.Loop() {
			if err := sym.Reload("bench"); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, start, 0)
	})
}

// BenchmarkKsymLive loads and unloads a program per op (two ksymbol
// events) with a Symbolizer of the running kernel open that follows the
// events (Follow) or not (Off): the difference in process CPU per op is
// what following costs for two events, perf wakeups and reads included.
// Run the two in alternation (-count).
func BenchmarkKsymLive(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("not root")
	}
	for _, follow := range []bool{true, false} {
		name := map[bool]string{true: "Follow", false: "Off"}[follow]
		b.Run(name, func(b *testing.B) {
			removed := make(chan struct{}, 1)
			sym, err := NewSymbolizer(Options{NoSysfs: true, NoKsymEvents: !follow, OnKsym: func(ev KsymEvent) {
				if ev.Op == KsymRemove {
					select {
					case removed <- struct{}{}:
					default:
					}
				}
			}})

			if err != nil {
				b.Skip(err)
			}
			defer sym.Close()
			if follow && sym.KsymEventsErr() != nil {
				b.Skip(sym.KsymEventsErr())
			}
			start := cpuNow()
			for b.Loop() {
				f, err := bpfsys.LoadSocketFilter("kmeta_bench")
				if err != nil {
					b.Fatal(err)
				}
				f.Close()
				if follow { // each op ends when its events are applied
					<-removed
				}
			}
			reportCPU(b, start, 0)
		})
	}
}
