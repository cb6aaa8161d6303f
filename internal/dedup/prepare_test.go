package dedup_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestPrepareConcurrent merges all 1,121 modules as the CLI does (run it
// with -race): four goroutines prepare them at once, reusing the buffers
// the appending goroutine hands back, and the result is libbpf 1.8's.
func TestPrepareConcurrent(t *testing.T) {
	vm, base := debian(t)
	names := mergedOrder(t)
	specs := make([]*btf.Spec, len(names))
	for i, n := range names {
		specs[i] = module(t, n)
	}
	m := dedup.New(base, dedup.Options{Workers: 4})
	type result struct {
		p   *dedup.Prepared
		err error
	}
	slots := make([]chan result, len(specs))
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	room := make(chan struct{}, 8) // at most 8 prepared ahead
	var (
		next sync.Mutex
		n    int
		wg   sync.WaitGroup
	)
	for range 4 {
		wg.Go(func() {
			for {
				room <- struct{}{}
				next.Lock()
				i := n
				n++
				next.Unlock()
				if i >= len(specs) {
					return
				}
				p, err := m.Prepare(context.Background(), specs[i])
				slots[i] <- result{p, err}
			}
		})
	}
	for i := range specs {
		r := <-slots[i]
		<-room
		if r.err != nil {
			t.Fatal(r.err)
		}
		if err := m.AddPrepared(r.p); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		<-room // let the producers see the end
	}
	wg.Wait()
	raw, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalBTF(t, raw, golden(t, "modules-merged"), vm)
}

// TestPrepareMisuse: a Prepared is appended once, to its own Merger, and
// not after Dedup.
func TestPrepareMisuse(t *testing.T) {
	_, base := debian(t)
	mod := module(t, "af_key")
	m, other := dedup.New(base, dedup.Options{}), dedup.New(base, dedup.Options{})
	p, err := m.Prepare(context.Background(), mod)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.AddPrepared(p); err == nil {
		t.Error("input prepared for one Merger appended to another")
	}
	if err := m.AddPrepared(p); err != nil {
		t.Fatal(err)
	}
	if err := m.AddPrepared(p); err == nil {
		t.Error("input appended twice")
	}
	if m.NumTypes() != mod.NumTypes() {
		t.Errorf("%d types appended, want %d", m.NumTypes(), mod.NumTypes())
	}
	p, err = m.Prepare(context.Background(), mod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Dedup(builder.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := m.AddPrepared(p); !errors.Is(err, dedup.ErrDone) {
		t.Errorf("AddPrepared after Dedup: %v, want ErrDone", err)
	}
	if _, err := dedup.New(nil, dedup.Options{}).Prepare(context.Background(), mod); err == nil {
		t.Error("split input prepared for a standalone Merger")
	}
}

// Inputs prepared on their own goroutines, as they are read, and appended
// in their order on one: the output is the same as with AddSpec.
func ExampleMerger_Prepare() {
	var specs []*btf.Spec
	for _, name := range []string{"a", "b", "c"} {
		// Each input: int, and a variable of it.
		b := builder.New()
		i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		b.AddVar(name, i, btf.LinkageGlobal)
		raw, _ := b.Marshal(builder.Options{})
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		specs = append(specs, s)
	}
	m := dedup.New(nil, dedup.Options{})
	prepared := make([]chan *dedup.Prepared, len(specs))
	for i, s := range specs {
		prepared[i] = make(chan *dedup.Prepared, 1)
		go func() {
			p, err := m.Prepare(context.Background(), s)
			if err != nil {
				fmt.Println(err)
			}
			prepared[i] <- p
		}()
	}
	for _, c := range prepared {
		p := <-c
		if p == nil {
			return
		}
		if err := m.AddPrepared(p); err != nil {
			fmt.Println(err)
			return
		}
	}
	raw, err := m.Dedup(builder.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rawdump.Write(os.Stdout, s, rawdump.Options{})
	// Output:
	// [1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
	// [2] VAR 'a' type_id=1, linkage=global
	// [3] VAR 'b' type_id=1, linkage=global
	// [4] VAR 'c' type_id=1, linkage=global
}

// BenchmarkAppend: appending the 1,121 modules on the base, AddSpec
// against AddPrepared with every input prepared beforehand (what the
// CLI's producers do beside it). Reports
// the CPU time of the appending goroutine's thread, which is what lies on
// the critical path and which other processes inflate less than wall
// time, for the appending and for Dedup with one worker.
func BenchmarkAppend(b *testing.B) {
	_, base := debian(b)
	specs := allModules(b)
	for _, mode := range []string{"AddSpec", "AddPrepared"} {
		b.Run(mode, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var app, dd time.Duration
			for b.Loop() {
				b.StopTimer()
				m := dedup.New(base, dedup.Options{})
				b.StartTimer()
				// Inputs are prepared 16 ahead, as the CLI's producers
				// keep them, and only the appending is timed.
				var ps []*dedup.Prepared
				for i, s := range specs {
					if mode != "AddSpec" && i%16 == 0 {
						ps = ps[:0]
						for _, s := range specs[i:min(i+16, len(specs))] {
							p, err := m.Prepare(context.Background(), s)
							if err != nil {
								b.Fatal(err)
							}
							ps = append(ps, p)
						}
					}
					c := threadCPU()
					var err error
					if mode != "AddSpec" {
						err = m.AddPrepared(ps[i%16])
					} else {
						err = m.AddSpec(s)
					}
					if err != nil {
						b.Fatal(err)
					}
					app += threadCPU() - c
				}
				c := threadCPU()
				if _, err := m.Dedup(builder.Options{}); err != nil {
					b.Fatal(err)
				}
				dd += threadCPU() - c
			}
			b.ReportMetric(float64(app)/float64(b.N)/1e6, "append-ms/op")
			b.ReportMetric(float64(dd)/float64(b.N)/1e6, "dedup-ms/op")
		})
	}
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPrepareClose: PrepareClose of a large input held in memory of its
// own (read from a gzip stream, so inflated into a Region, whose records
// it gives back as it reads them) and of one parsed from the caller's
// memory deduplicates as AddSpec does, byte for byte, and closes the
// Spec. Each input spans many MB-long parts of the type section: the
// Debian vmlinux, and eight ENUM64s of 65,535 values.
func TestPrepareClose(t *testing.T) {
	enums, err := hostile.BuildMix(hostile.Enum64s, 8)
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{"vmlinux": testfixtures.Read(t, testfixtures.DebianVmlinux), "enum64s": enums}
	for name, raw := range inputs {
		want := dedupSpec(t, nil, parse(t, raw, nil), (*dedup.Merger).Prepare)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(raw)
		zw.Close()
		inflated, err := btf.Read(context.Background(), &gz, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for how, s := range map[string]*btf.Spec{"inflated": inflated, "parsed": parse(t, raw, nil)} {
			if got := dedupSpec(t, nil, s, (*dedup.Merger).PrepareClose); !bytes.Equal(got, want) {
				t.Errorf("%s, %s: PrepareClose's output differs from Prepare's at byte %d", name, how, firstDiff(got, want))
			}
			if _, err := s.TypeByID(1); err == nil {
				t.Errorf("%s, %s: the Spec is still open after PrepareClose", name, how)
			}
		}
	}
}

// dedupSpec deduplicates s alone on base (nil: standalone), prepared by
// prepare.
func dedupSpec(t *testing.T, base *dedup.Base, s *btf.Spec, prepare func(*dedup.Merger, context.Context, *btf.Spec) (*dedup.Prepared, error)) []byte {
	t.Helper()
	m := dedup.New(base, dedup.Options{})
	p, err := prepare(m, context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddPrepared(p); err != nil {
		t.Fatal(err)
	}
	out, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPrepareLayoutSection: Prepare walks the type section of a Spec
// without a layout section in place, and reads one with it record by
// record (its layouts may size kinds this package does not know); the
// same types give the same output either way.
func TestPrepareLayoutSection(t *testing.T) {
	vm, base := debian(t)
	dd := func(s *btf.Spec) []byte { return dedupSpec(t, base, s, (*dedup.Merger).Prepare) }
	for _, name := range mergedOrder(t)[:20] {
		s := module(t, name)
		var buf bytes.Buffer
		if err := builder.WriteAsIs(&buf, s, vm, builder.Options{Layout: true}); err != nil {
			t.Fatal(err)
		}
		l := parse(t, buf.Bytes(), vm)
		if l.HeaderLen() <= s.HeaderLen() {
			t.Fatalf("%s: header of %d bytes, want a layout section", name, l.HeaderLen())
		}
		if got, want := dd(l), dd(s); !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes with a layout section, %d without", name, len(got), len(want))
		}
	}
}
