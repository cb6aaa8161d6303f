package dedup_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func allModules(b *testing.B) []*btf.Spec {
	var specs []*btf.Spec
	for _, name := range mergedOrder(b) {
		specs = append(specs, module(b, name))
	}
	return specs
}

// BenchmarkMerged: all 1,121 Debian modules appended on the base and
// deduplicated once.
func BenchmarkMerged(b *testing.B) {
	_, base := debian(b)
	specs := allModules(b)
	b.ReportAllocs()
	c := startCPU()
	for b.Loop() {
		if _, err := dedup.Specs(base, specs...); err != nil {
			b.Fatal(err)
		}
	}
	c.report(b)
}

// cpuClock measures the process's CPU time (user+system, all threads, the
// garbage collector's included), which a busy machine inflates less than
// wall time.
type cpuClock time.Duration

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock(cpuNow()) }

func (c cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(cpuNow()-time.Duration(c))/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkEach: each of the 1,121 modules deduplicated against the base
// on its own, one goroutine (the CLI's --each spreads them over cores).
func BenchmarkEach(b *testing.B) {
	_, base := debian(b)
	specs := allModules(b)
	b.ReportAllocs()
	c := startCPU()
	for b.Loop() {
		for _, s := range specs {
			if _, err := dedup.Specs(base, s); err != nil {
				b.Fatal(err)
			}
		}
	}
	c.report(b)
}

// BenchmarkNewBase: preparing the Debian vmlinux as a base, with 1 and 2
// workers.
func BenchmarkNewBase(b *testing.B) {
	s := testfixtures.DebianSpec(b)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.ReportAllocs()
			c := startCPU()
			for b.Loop() {
				if _, err := dedup.NewBase(s, dedup.Options{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			c.report(b)
		})
	}
}

// BenchmarkMergedWorkers: BenchmarkMerged's deduplication alone (the
// inputs appended beforehand), with 1 and 2 workers.
func BenchmarkMergedWorkers(b *testing.B) {
	_, base := debian(b)
	specs := allModules(b)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				m := dedup.New(base, dedup.Options{Workers: w})
				for _, s := range specs {
					if err := m.AddSpec(s); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				c := cpuNow()
				if _, err := m.Dedup(builder.Options{}); err != nil {
					b.Fatal(err)
				}
				cpu += cpuNow() - c
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
