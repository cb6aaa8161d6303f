package live

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/bpfobj"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kallsyms"
)

// TestRedteam15BPFThousands loads thousands of BPF programs as fast as
// bpf() allows while a Symbolizer of the running kernel follows their
// ksymbol events and another goroutine walks the programs by id
// (bpfobj.Progs) and looks them up, then closes them all at once. The
// oracle is the kernel's /proc/kallsyms: once every add event is applied,
// each program resolves to the very name and address kallsyms lists; once
// every remove is applied, none does. The walk, racing the unloads, must
// never fail. Plain go test: 300 programs (root only; skipped without
// bpf() or ksymbol events); KMETA_HEAVY=1: 4,000.
func TestRedteam15BPFThousands(t *testing.T) {
	prefix := fmt.Sprintf("k15%d_", os.Getpid()%10000)
	if os.Geteuid() != 0 {
		t.Skip("not root: needs CAP_BPF, CAP_PERFMON and kallsyms addresses")
	}
	probe, err := bpfsys.LoadSocketFilter(prefix + "probe")
	if err != nil {
		t.Skipf("cannot load a BPF program: %v", err)
	}
	probe.Close()
	n := 300
	if testfixtures.Heavy() {
		n = 4000
	}
	var mu sync.Mutex
	added := map[string]KsymEvent{}
	var adds, removes, lost, reloads atomic.Int64
	sym, err := NewSymbolizer(Options{NoSysfs: true, OnReload: func(ReloadEvent) { reloads.Add(1) }, OnKsym: func(ev KsymEvent) {
		if ev.Op == KsymLost {
			lost.Add(int64(max(ev.Lost, 1)))
		}
		if ev.Type != KsymTypeBPF || !strings.Contains(ev.Name, "_"+prefix) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch ev.Op {
		case KsymAdd:
			added[ev.Name] = ev
			adds.Add(1)
		case KsymRemove:
			removes.Add(1)
		}
	}})
	if errors.Is(err, kallsyms.ErrRestricted) {
		t.Skipf("kallsyms: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	if err := sym.KsymEventsErr(); err != nil {
		t.Skipf("ksymbol events unavailable: %v", err)
	}

	var stop atomic.Bool
	var walks, walked atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			for p, err := range bpfobj.Progs() {
				if err != nil {
					t.Errorf("walking programs during churn: %v", err)
					stop.Store(true)
					return
				}
				_ = p
				walked.Add(1)
			}
			walks.Add(1)
			runtime.Gosched()
		}
	})
	ours := func() int {
		k := 0
		for s := range sym.Snapshot().ModuleSymbols(kallsyms.BPF) {
			if strings.Contains(s.Name, "_"+prefix) {
				k++
			}
		}
		return k
	}
	// wait waits for want events counted by c or, once events were lost,
	// for the resynchronizing reload to leave the BPF table with ours
	// programs of this test.
	wait := func(what string, c *atomic.Int64, want int64, ours func() int, left int) time.Duration {
		start := time.Now()
		for c.Load() < want && (lost.Load() == 0 || ours() != left) {
			if time.Since(start) > 60*time.Second {
				t.Fatalf("%s: %d of %d events within 60s", what, c.Load(), want)
			}
			time.Sleep(time.Millisecond)
		}
		return time.Since(start)
	}

	cpu0 := cpuTime()
	start := time.Now()
	files := make([]*os.File, 0, n)
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for i := range n {
		f, err := bpfsys.LoadSocketFilter(fmt.Sprintf("%s%d", prefix, i))
		if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENOMEM) || errors.Is(err, syscall.EPERM) {
			t.Logf("stopped at %d programs: %v", i, err)
			n = i
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	loaded := time.Since(start)
	lag := wait("add", &adds, int64(n), ours, n)
	cpuAdd := cpuTime() - cpu0

	kern := procBPF(t)
	snap := sym.Snapshot()
	mu.Lock()
	bad := 0
	if len(added) < n {
		t.Logf("%d add events of %d seen (%d lost); checking those", len(added), n, lost.Load())
	}
	for name, ev := range added {
		got, err := snap.Lookup(ev.Addr + uint64(ev.Len)/2)
		if a, ok := kern[name]; !ok || a != ev.Addr || err != nil || got.Name != name || got.Module != kallsyms.BPF {
			if bad++; bad <= 5 {
				t.Errorf("%s: event at %#x, kallsyms at %#x (listed %v); Lookup = %+v, %v", name, ev.Addr, a, ok, got, err)
			}
		}
	}
	mu.Unlock()
	if k := ours(); k != n {
		t.Errorf("BPF table holds %d of this test's programs, want %d", k, n)
	}

	cpu1 := cpuTime()
	start = time.Now()
	for _, f := range files {
		f.Close()
	}
	files = nil
	closed := time.Since(start)
	rlag := wait("remove", &removes, int64(n), ours, 0)
	cpuRemove := cpuTime() - cpu1
	stop.Store(true)
	wg.Wait()
	// The kernel frees a program's image after an RCU grace period; the
	// remove event comes with it, so the table is clean at once.
	for s := range sym.Snapshot().ModuleSymbols(kallsyms.BPF) {
		if strings.Contains(s.Name, "_"+prefix) {
			t.Errorf("%s still in the BPF table after its remove event", s.Name)
			break
		}
	}
	t.Logf("%d programs loaded in %v, last add applied %v later; closed in %v, last remove applied %v later; "+
		"process CPU %v (adds), %v (removes); %d snapshots patched, %d events lost, %d reloads; %d walks saw %d programs",
		n, loaded, lag, closed, rlag, cpuAdd, cpuRemove, sym.patches.Load(), lost.Load(), reloads.Load(), walks.Load(), walked.Load())
}

// cpuTime is this process's user plus system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
