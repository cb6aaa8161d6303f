package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/kallsyms"
	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
	"github.com/kmeta-dev/kmeta/uevent"
)

// rt15Marker is the address of the first line of every kallsyms version
// the fifteenth campaign writes: "rt15_marker_<version>".
const rt15Marker uint64 = 0xffffffff80000000

// rt15Mods are the modules whose sysfs entries the campaign mutates; the
// kallsyms versions list symbols of the first two.
var rt15Mods = []string{"rt15a", "rt15b", "vmlinux", "bpf", "__builtin__ftrace"}

// rt15Kallsyms returns kallsyms version v: the marker, the base text, and
// v%3 modules' symbols near their sysfs .text.
func rt15Kallsyms(base []byte, v int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%x T rt15_marker_%d\n", rt15Marker, v)
	b.Write(base)
	for m := range v % 3 {
		for i := range 50 {
			fmt.Fprintf(&b, "%x t rt15_fn%d_%d\t[%s]\n", 0xffffffffc0000000+uint64(m)<<20+uint64(i)<<6, i, v, rt15Mods[m])
		}
	}
	return []byte(b.String())
}

// rt15Count returns how many reloads the campaign runs: 100 in plain go
// test (about 3 s on a loaded two-core machine), 10,000 with
// KMETA_HEAVY=1.
func rt15Count() int {
	if testfixtures.Heavy() {
		if n, err := strconv.Atoi(os.Getenv("KMETA_RT15_RELOADS")); err == nil && n > 0 {
			return n
		}
		return 10000
	}
	return 100
}

// fds counts this process's open file descriptors.
func fds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// rssKB reads this process's resident set from /proc/self/status.
func rssKB() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// TestRedteam15Reloads is the fifteenth campaign's live round: a
// Symbolizer of a kallsyms file and a sysfs tree that change under it
// (the file rewritten, truncated and grown in place, made a directory,
// a symbolic-link loop, empty or all zero addresses; module directories
// removed, replaced, looped, with hostile .text addresses, sizes, notes
// and FIFOs: hostile.Sysfs15s), reloaded again and again while four
// goroutines look addresses up, Watch applies hostile module uevents and
// fake ksymbol events patch the BPF table. It checks that nothing panics
// or hangs, that a reload of a file written whole sees exactly that
// version (no half-read state), that lookups of the marker never return
// a wrong name, and that goroutines, descriptors and memory come back
// after Close. KMETA_HEAVY=1 runs 10,000 reloads (KMETA_RT15_RELOADS
// overrides) and logs the resident set.
func TestRedteam15Reloads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kallsyms")
	sys := filepath.Join(dir, "sys")
	base := reloadInputs(t, 0)
	ksymtest.WriteAtomic(t, path, rt15Kallsyms(base, 0))
	for _, m := range rt15Mods {
		if err := hostile.WriteSysfs15(sys, m, hostile.SysfsPlain); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	goroutines0, fds0 := runtime.NumGoroutine(), fds(t)

	events := &fakeEvents{ch: make(chan uevent.Event), closed: make(chan struct{})}
	ks := newFakeKsyms()
	var reloadErrs atomic.Int64
	var errMu sync.Mutex
	errKinds := map[string]int{}
	sym, err := newSymbolizer(Options{Kallsyms: path, Sysfs: sys, Workers: 2, Coalesce: time.Millisecond, MinInterval: -1,
		KsymEvents: ks,
		OnReload: func(ev ReloadEvent) {
			if ev.Err != nil {
				reloadErrs.Add(1)
				msg := strings.ReplaceAll(ev.Err.Error(), dir, "DIR")
				if strings.Contains(msg, "\n") {
					t.Errorf("reload error of more than one line: %q", msg)
				}
				errMu.Lock()
				errKinds[msg]++
				errMu.Unlock()
			}
		}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	watchDone := make(chan error, 1)
	go func() { watchDone <- sym.Watch(ctx, WatchOptions{Events: events}) }()

	var stop atomic.Bool
	var wg sync.WaitGroup
	var lookups, wrong atomic.Int64
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 15))
			var buf []byte
			var s kallsyms.Symbol
			for !stop.Load() {
				snap := sym.Snapshot()
				b, err := snap.LookupAppend(buf[:0], &s, rt15Marker)
				if err == nil && !strings.HasPrefix(string(b), "rt15_marker_") {
					wrong.Add(1)
				}
				// Anywhere, and in the hostile ranges at the top.
				snap.LookupAppend(buf[:0], &s, rng.Uint64())
				snap.LookupAppend(buf[:0], &s, ^uint64(0)-rng.Uint64N(1<<24))
				snap.LookupAppend(buf[:0], &s, 0xffffffffc0000000+rng.Uint64N(1<<24))
				for range snap.Modules() {
				}
				lookups.Add(1)
				time.Sleep(50 * time.Microsecond) // the machine has two cores
			}
		})
	}
	// Hostile uevents: adds and removes of the mutated modules, odd names.
	wg.Go(func() {
		names := append(slices15(rt15Mods), "", "..", "../../etc", strings.Repeat("m", 4096), "a/b", "rt15\x00x")
		for i := 0; !stop.Load(); i++ {
			action := [...]string{"add", "remove", "change"}[i%3]
			ev := uevent.Event{Action: action, Subsystem: "module", DevPath: "/module/" + names[i%len(names)]}
			time.Sleep(200 * time.Microsecond)
			select {
			case events.ch <- ev:
			case <-events.closed:
				return
			}
		}
	})
	// Hostile ksymbol events.
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(15, 15))
		for i := 0; !stop.Load(); i++ {
			evs := make([]KsymEvent, 1+rng.IntN(64))
			for j := range evs {
				evs[j] = KsymEvent{Op: KsymOp(rng.IntN(4)), Type: uint16(rng.IntN(3)), Addr: rng.Uint64N(4) << 62 >> rng.IntN(64),
					Len: rng.Uint32(), Time: rng.Uint64N(1 << 40), Lost: rng.Uint64(),
					Name: strings.Repeat("p", rng.IntN(2)*(1+rng.IntN(kallsyms.MaxNameLen+2)))}
			}
			time.Sleep(200 * time.Microsecond)
			select {
			case ks.ch <- evs:
			case <-ks.closed:
				return
			}
		}
	})

	n := rt15Count()
	muts := hostile.Sysfs15s()
	rss := make([]int, 0, 4)
	start := time.Now()
	for i := range n {
		v := i + 1
		whole := false
		switch i % 8 {
		case 0, 1, 2:
			ksymtest.WriteAtomic(t, path, rt15Kallsyms(base, v))
			whole = true
		case 3: // truncated in place
			data := rt15Kallsyms(base, v)
			os.WriteFile(path, data[:len(data)/2], 0o644)
		case 4: // grown in place
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				fmt.Fprintf(f, "%x t rt15_grown_%d\t[rt15b]\n", 0xffffffffc0200000+uint64(v)<<4, v)
				f.Close()
			}
		case 5:
			switch (i / 8) % 4 {
			case 0:
				os.Remove(path)
				os.Mkdir(path, 0o755)
			case 1:
				os.RemoveAll(path)
				os.Symlink(filepath.Base(path), path)
			case 2:
				os.RemoveAll(path)
				os.WriteFile(path, nil, 0o644)
			case 3:
				os.RemoveAll(path)
				os.WriteFile(path, []byte("0000000000000000 T a\n0000000000000000 t b [m]\n"), 0o644)
			}
		case 6, 7:
			os.RemoveAll(path)
			ksymtest.WriteAtomic(t, path, rt15Kallsyms(base, v))
			whole = true
		}
		if err := hostile.WriteSysfs15(sys, rt15Mods[i%len(rt15Mods)], muts[(i/len(rt15Mods))%len(muts)]); err != nil {
			t.Fatal(err)
		}
		err := sym.Reload(fmt.Sprintf("round %d", i))
		if whole {
			if err != nil {
				t.Fatalf("round %d: reload of a whole file: %v", i, err)
			}
			// A ksymbol patch may have replaced the snapshot since, but
			// only the BPF table: the marker is the one just read.
			got, err := sym.Snapshot().Lookup(rt15Marker)
			if want := fmt.Sprintf("rt15_marker_%d", v); err != nil || got.Name != want {
				t.Fatalf("round %d: marker %q, %v; want %s", i, got.Name, err, want)
			}
		}
		if i == n/4 || i == n/2 || i == 3*n/4 || i == n-1 {
			runtime.GC()
			rss = append(rss, rssKB())
		}
	}
	elapsed := time.Since(start)
	stop.Store(true)
	cancel()
	select {
	case err := <-watchDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return within 5s of its context's end")
	}
	closeStart := time.Now()
	sym.Close()
	if d := time.Since(closeStart); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	events.Close()
	wg.Wait()
	if w := wrong.Load(); w > 0 {
		t.Errorf("%d lookups of the marker returned another name", w)
	}
	t.Logf("%d reloads in %v (%d failed as expected of broken inputs); %d lookup rounds; RSS at 1/4, 1/2, 3/4, end: %v KB",
		n, elapsed, reloadErrs.Load(), lookups.Load(), rss)
	for msg, k := range errKinds {
		t.Logf("%5d× %s", k, msg)
	}
	if testfixtures.Heavy() && len(rss) == 4 && rss[3] > rss[0]+64<<10 {
		t.Errorf("resident set grew from %d KB to %d KB over the reloads", rss[0], rss[3])
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines0 {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", g, goroutines0, buf[:runtime.Stack(buf, true)])
	}
	if f := fds(t); f > fds0 {
		t.Errorf("%d descriptors open after Close, %d before", f, fds0)
	}
}

func slices15(s []string) []string { return append([]string(nil), s...) }
