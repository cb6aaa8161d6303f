//go:build linux

package live

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/bpftest"
	"github.com/kmeta-dev/kmeta/internal/perfevent"
	"github.com/kmeta-dev/kmeta/kallsyms"
)

// liveEnv is a Symbolizer of the running kernel that follows ksymbol
// events; events receives those of this test's programs (names with the
// test's prefix), reloads counts full reloads.
type liveEnv struct {
	sym     *Symbolizer
	prefix  string
	events  chan KsymEvent
	reloads atomic.Int64
}

// openLive opens the Symbolizer, or skips the test where kallsyms
// addresses, BPF programs or perf events are not available.
func openLive(t *testing.T, prefix string) *liveEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: needs CAP_BPF, CAP_PERFMON and kallsyms addresses")
	}
	probe, err := bpfsys.LoadSocketFilter(prefix + "probe")
	if err != nil {
		t.Skipf("cannot load a kallsyms.BPF program: %v", err)
	}
	probe.Close()
	e := &liveEnv{prefix: prefix, events: make(chan KsymEvent, 1024)}
	e.sym, err = NewSymbolizer(Options{NoSysfs: true,
		OnKsym: func(ev KsymEvent) {
			if strings.Contains(ev.Name, "_"+prefix) {
				e.events <- ev
			}
		},
		OnReload: func(ReloadEvent) { e.reloads.Add(1) }})

	if errors.Is(err, kallsyms.ErrRestricted) {
		t.Skipf("kallsyms: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.sym.Close() })
	if err := e.sym.KsymEventsErr(); err != nil {
		t.Skipf("ksymbol events unavailable: %v", err)
	}
	return e
}

// load loads a program called name and returns it with the Symbolizer's
// add event for its symbol.
func (e *liveEnv) load(t testing.TB, name string) (*os.File, KsymEvent) {
	t.Helper()
	f, err := bpfsys.LoadSocketFilter(name)
	if err != nil {
		t.Fatal(err)
	}
	return f, e.wait(t, KsymAdd, name, 5*time.Second)
}

// wait returns the next event of the program called name, which must be
// an op event, within d.
func (e *liveEnv) wait(t testing.TB, op KsymOp, name string, d time.Duration) KsymEvent {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-e.events:
			if !strings.HasSuffix(ev.Name, "_"+name) {
				continue
			}
			if ev.Op != op || ev.Type != KsymTypeBPF || ev.Len == 0 {
				t.Fatalf("event %+v, want %v of %s", ev, op, name)
			}
			return ev
		case <-deadline:
			t.Fatalf("no %v event for %s within %v", op, name, d)
		}
	}
}

// procBPF reads the [bpf] symbols of /proc/kallsyms: name -> address.
func procBPF(t testing.TB) map[string]uint64 {
	t.Helper()
	f, err := os.Open(kallsyms.DefaultPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasSuffix(line, "\t[bpf]") {
			continue
		}
		fs := strings.Fields(line)
		a, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil {
			t.Fatalf("kallsyms line %q", line)
		}
		out[fs[2]] = a
	}
	return out
}

// TestKsymLive loads a program and unloads it while a Symbolizer of the
// running kernel follows ksymbol events. The oracle is the kernel's own
// /proc/kallsyms line bpf_prog_<tag>_<name>: the add event's address and
// name must be that line's, the Symbolizer must resolve the program's
// whole length to it without a reload, and within a second of the unload
// no longer resolve it to that name.
func TestKsymLive(t *testing.T) {
	e := openLive(t, fmt.Sprintf("kml%d_", os.Getpid()%10000))
	name := e.prefix + "one"
	before := e.sym.Snapshot()
	f, ev := e.load(t, name)
	if a, ok := procBPF(t)[ev.Name]; !ok || a != ev.Addr {
		t.Errorf("add event %s at %#x; /proc/kallsyms lists it at %#x (present: %v)", ev.Name, ev.Addr, a, ok)
	}
	for _, off := range []uint64{0, 1, uint64(ev.Len) - 1} {
		got, err := e.sym.Lookup(ev.Addr + off)
		if err != nil || got.Name != ev.Name || got.Module != kallsyms.BPF || got.Offset != off {
			t.Errorf("Lookup(%s+%d) = %+v, %v", ev.Name, off, got, err)
		}
	}
	if got, err := e.sym.Lookup(ev.Addr + uint64(ev.Len)); err == nil && got.Name == ev.Name {
		t.Errorf("Lookup past the program's %d bytes = %+v", ev.Len, got)
	}
	if got, err := before.Lookup(ev.Addr); err == nil && got.Name == ev.Name {
		t.Errorf("the snapshot from before the load resolves the program: %+v", got)
	}
	f.Close()
	start := time.Now()
	rm := e.wait(t, KsymRemove, name, time.Second)
	t.Logf("remove event %v after the unload", time.Since(start))
	if rm.Addr != ev.Addr || rm.Name != ev.Name {
		t.Errorf("remove event %+v for add event %+v", rm, ev)
	}
	if got, err := e.sym.Lookup(ev.Addr); err == nil && got.Name == ev.Name {
		t.Errorf("after the unload, Lookup = %+v", got)
	}
	if _, ok := procBPF(t)[ev.Name]; ok {
		t.Errorf("kallsyms still lists %s", ev.Name)
	}
	// Other processes' out-of-line code or a flood of their programs may
	// cause a reload; TestKsymChurn bounds their number.
	t.Logf("%d full reloads", e.reloads.Load())
}

// TestKsymChurn loads and unloads 50 programs (200 with KMETA_HEAVY=1, as
// CI runs it), one after the other, while
// four readers resolve the addresses of four programs that stay loaded.
// Every answer must be right: the readers' (exact names and offsets), and
// the churner's, who checks each program's symbol after its add event
// (against /proc/kallsyms every tenth time) and its absence after its
// remove event, which must come within a second (five under -race). Events must not cause a
// full reread each: the test counts reloads. At the end the Symbolizer's
// BPF table must equal /proc/kallsyms'.
func TestKsymChurn(t *testing.T) {
	e := openLive(t, fmt.Sprintf("kmc%d_", os.Getpid()%10000))
	type prog struct {
		name string
		addr uint64
		size uint32
	}
	var stable []prog
	for i := range 4 {
		f, ev := e.load(t, fmt.Sprintf("%sst%d", e.prefix, i))
		defer f.Close()
		stable = append(stable, prog{ev.Name, ev.Addr, ev.Len})
	}
	var stop atomic.Bool
	var lookups, wrong atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait() // before the stable programs unload
	defer stop.Store(true)
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			var buf []byte
			var sym kallsyms.Symbol
			for n := 1; !stop.Load(); n++ {
				if n%64 == 0 { // leave the churner and the follower CPU, also at GOMAXPROCS=1
					time.Sleep(time.Millisecond)
				}
				p := stable[rng.IntN(len(stable))]
				off := rng.Uint64N(uint64(p.size))
				var err error
				buf, err = e.sym.Snapshot().LookupAppend(buf[:0], &sym, p.addr+off)
				if err != nil || string(buf) != p.name || sym.Offset != off || sym.Module != kallsyms.BPF {
					if wrong.Add(1) <= 5 {
						t.Errorf("Lookup(%s+%d) = %q %+v, %v", p.name, off, buf, sym, err)
					}
				}
				lookups.Add(1)
			}
		})
	}
	churn := int64(50)
	if os.Getenv("KMETA_HEAVY") == "1" {
		churn = 200
	}
	// A remove event must be applied within a second of the unload; the
	// race detector and a machine shared with other work stretch that.
	bound := time.Second
	if raceEnabled {
		bound = 5 * time.Second
	}
	var maxRemove time.Duration
	start := time.Now()
	for i := range churn {
		name := fmt.Sprintf("%sc%d", e.prefix, i)
		f, ev := e.load(t, name)
		if got, err := e.sym.Lookup(ev.Addr); err != nil || got.Name != ev.Name {
			wrong.Add(1)
			t.Errorf("after the add event of %s: Lookup = %+v, %v", ev.Name, got, err)
		}
		if i%10 == 0 {
			if a := procBPF(t)[ev.Name]; a != ev.Addr {
				wrong.Add(1)
				t.Errorf("add event %s at %#x, kallsyms at %#x", ev.Name, ev.Addr, a)
			}
		}
		f.Close()
		unloaded := time.Now()
		e.wait(t, KsymRemove, name, bound)
		maxRemove = max(maxRemove, time.Since(unloaded))
		if got, err := e.sym.Lookup(ev.Addr); err == nil && got.Name == ev.Name {
			wrong.Add(1)
			t.Errorf("after the remove event of %s: Lookup = %+v", ev.Name, got)
		}
	}
	elapsed := time.Since(start)
	stop.Store(true)
	wg.Wait()
	reloads, patches := e.reloads.Load(), e.sym.patches.Load()
	t.Logf("%d loads and unloads in %v (slowest remove event %v); %d lookups by readers, %d wrong answers; %d snapshots patched, %d full reloads",
		churn, elapsed, maxRemove, lookups.Load(), wrong.Load(), patches, reloads)
	if wrong.Load() != 0 {
		t.Errorf("%d wrong answers", wrong.Load())
	}
	if reloads > churn/20 {
		t.Errorf("%d full reloads for %d events: events must patch, not reload", reloads, 2*churn)
	}
	if patches < churn {
		t.Errorf("only %d patches for %d loads", patches, churn)
	}
	checkAgainstKallsyms(t, e.sym)
}

// checkAgainstKallsyms compares the Symbolizer's BPF symbols with
// /proc/kallsyms', again for up to 5 seconds while other processes load
// programs meanwhile.
func checkAgainstKallsyms(t *testing.T, sym *Symbolizer) {
	t.Helper()
	var diff []string
	for range 100 {
		want := procBPF(t)
		got := map[string]uint64{}
		for s := range sym.Snapshot().All() {
			if s.Module == kallsyms.BPF {
				got[s.Name] = s.Addr
			}
		}
		diff = diff[:0]
		for n, a := range want {
			if got[n] != a {
				diff = append(diff, fmt.Sprintf("kallsyms %s at %#x, Symbolizer at %#x", n, a, got[n]))
			}
		}
		for n := range got {
			if _, ok := want[n]; !ok {
				diff = append(diff, fmt.Sprintf("Symbolizer has %s, kallsyms not", n))
			}
		}
		if len(diff) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("kallsyms.BPF symbols differ from /proc/kallsyms:\n%s", strings.Join(diff, "\n"))
}

// TestKsymLostLive makes the kernel drop ksymbol records: the Symbolizer
// follows with one-page rings, and its follower is held (in OnKsym) while
// 60 programs on one CPU load and unload. Once it goes on, the kernel's
// PERF_RECORD_LOST must cause one throttled full reload, after which the
// BPF table equals /proc/kallsyms'.
func TestKsymLostLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: needs CAP_BPF, CAP_PERFMON and kallsyms addresses")
	}
	prefix := fmt.Sprintf("kmx%d_", os.Getpid()%10000)
	hold, held := make(chan struct{}), make(chan struct{}, 1)
	reloads := make(chan ReloadEvent, 10)
	openKsyms := func() (KsymReader, error) {
		r, err := perfevent.Open(&perfevent.Options{Pages: 1})
		if err != nil {
			return nil, err
		}
		return &perfKsyms{r: r}, nil
	}
	sym, err := newSymbolizer(Options{NoSysfs: true,
		OnKsym: func(ev KsymEvent) {
			if strings.Contains(ev.Name, "_"+prefix+"hold") {
				select {
				case held <- struct{}{}:
				default:
				}
				<-hold
			}
		},
		OnReload: func(ev ReloadEvent) { reloads <- ev }}, openKsyms)

	if errors.Is(err, kallsyms.ErrRestricted) {
		t.Skipf("kallsyms: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	release := sync.OnceFunc(func() { close(hold) })
	defer release() // before Close, which waits for the follower
	if err := sym.KsymEventsErr(); err != nil {
		t.Skipf("ksymbol events unavailable: %v", err)
	}
	bpftest.PinToOneCPU(t)
	load := func(name string) {
		f, err := bpfsys.LoadSocketFilter(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	load(prefix + "hold")
	select {
	case <-held:
	case <-time.After(5 * time.Second):
		t.Fatal("the follower did not reach the held event")
	}
	for i := range 60 {
		load(fmt.Sprintf("%s%d", prefix, i))
	}
	release()
	time.Sleep(100 * time.Millisecond) // the follower drains the ring
	load(prefix + "after")             // the kernel writes the lost record before this one's
	select {
	case ev := <-reloads:
		if ev.Err != nil || len(ev.Reasons) == 0 || !strings.HasPrefix(ev.Reasons[0], "resync after") {
			t.Errorf("reload %+v, want a resync after lost events", ev)
		}
		t.Logf("reload: %q in %v", ev.Reasons, ev.Duration)
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after lost records")
	}
	checkAgainstKallsyms(t, sym)
	select {
	case ev := <-reloads:
		t.Errorf("a second reload: %+v", ev)
	default:
	}
}
