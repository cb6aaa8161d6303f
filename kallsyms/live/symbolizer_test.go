package live

import (
	"bufio"
	"bytes"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/kallsyms"
	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
)

// reloadInputs returns kallsyms text for vmlinux (a slice of the host
// file) plus synthetic modules synmod000..synmod00{n-1}.
func reloadInputs(tb testing.TB, nmods int) []byte {
	tb.Helper()
	var out bytes.Buffer
	host := ksymtest.ReadFixture(tb, "../testdata/host-6.18.44.kallsyms.gz")
	sc := bufio.NewScanner(bytes.NewReader(host))
	for i := 0; i < 5000 && sc.Scan(); i++ {
		out.WriteString(sc.Text() + "\n")
	}
	sc = bufio.NewScanner(bytes.NewReader(ksymtest.ReadFixture(tb, "../testdata/synthetic-modules.kallsyms.gz")))
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, "[synmod00")
		if i >= 0 && int(line[i+9]-'0') < nmods {
			out.WriteString(line + "\n")
		}
	}
	return out.Bytes()
}

// TestConcurrentReloads runs 8 readers while 100 reloads add and remove a
// module or fail: lookups of symbols present in both snapshots never fail.
func TestConcurrentReloads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kallsyms")
	withFive, withSix := reloadInputs(t, 5), reloadInputs(t, 6)
	ksymtest.WriteAtomic(t, path, withFive)
	sym, err := NewSymbolizer(Options{Kallsyms: path, NoSysfs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()

	// The oracle is a snapshot of the same text: package kallsyms tests
	// its lookups against a reference implementation.
	r, err := kallsyms.Parse(bytes.NewReader(withFive), kallsyms.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var probes []kallsyms.Symbol
	i := 0
	for s := range r.All() {
		if i%5 == 0 {
			s.Offset = uint64(i % 3)
			probes = append(probes, s)
		}
		i++
	}
	var stop atomic.Bool
	var lookups, failures atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for !stop.Load() {
				p := probes[rng.IntN(len(probes))]
				want, werr := r.Lookup(p.Addr + p.Offset)
				notText := errors.Is(werr, kallsyms.ErrNotText)
				got, err := sym.Lookup(p.Addr + p.Offset)
				if notText && !errors.Is(err, kallsyms.ErrNotText) || !notText && (werr != nil || err != nil || got != want) {
					if failures.Add(1) < 5 {
						t.Errorf("Lookup(%#x) = %+v, %v; want %+v", p.Addr+p.Offset, got, err, want)
					}
				}
				lookups.Add(1)
			}
		}()
	}
	failed := 0
	const reloads = 40
	for i := range reloads {
		switch i % 4 {
		case 0, 2:
			ksymtest.WriteAtomic(t, path, withSix)
		case 1:
			ksymtest.WriteAtomic(t, path, withFive)
		case 3:
			ksymtest.WriteAtomic(t, path, append(bytes.Clone(withFive), "garbage line\n"...))
		}
		before := sym.Snapshot()
		if err := sym.Reload("test"); err != nil {
			var pe *kallsyms.ParseError
			if !errors.As(err, &pe) || sym.Snapshot() != before {
				t.Fatalf("reload %d: %v; snapshot replaced: %v", i, err, sym.Snapshot() != before)
			}
			failed++
			continue
		}
		_, err := sym.Snapshot().Module("synmod005")
		if has := err == nil; has != (i%4 != 1) {
			t.Fatalf("reload %d: synmod005 present = %v", i, has)
		}
		// After reload 4k+3 failed, 4k+4 reads the same six modules again:
		// every table is reused. 4k+2 adds synmod005: all but it reused.
		if want := map[int]int{0: 7, 2: 6}[i%4]; i > 0 && want > 0 {
			if n := sym.Snapshot().Shares(before); n != want {
				t.Errorf("reload %d: %d tables reused, want %d", i, n, want)
			}
		}
	}
	// With GOMAXPROCS=1 the readers may not have run yet: let them.
	for lookups.Load() == 0 {
		runtime.Gosched()
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d lookups during %d reloads (%d failed reloads), %d lookup failures", lookups.Load(), reloads, failed, failures.Load())
	if failures.Load() != 0 || failed != reloads/4 || lookups.Load() == 0 {
		t.Fatalf("%d lookup failures, %d failed reloads", failures.Load(), failed)
	}
}

// TestThrottle checks that a burst of requests makes one reload and that
// reloads keep the minimum interval.
func TestThrottle(t *testing.T) {
	t.Parallel() // it waits on timers
	path := filepath.Join(t.TempDir(), "kallsyms")
	ksymtest.WriteAtomic(t, path, []byte("ffffffff81000000 T _stext\n"))
	events := make(chan ReloadEvent, 10)
	sym, err := NewSymbolizer(Options{
		Kallsyms: path, NoSysfs: true,
		Coalesce: 50 * time.Millisecond, MinInterval: 400 * time.Millisecond,
		OnReload: func(ev ReloadEvent) { events <- ev },
	})

	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 20 {
		sym.RequestReload("burst")
	}
	ev := <-events
	if ev.Err != nil || len(ev.Reasons) != 16 || ev.Reused != 1 {
		t.Errorf("first reload: %+v", ev)
	}
	first := time.Since(start)
	sym.RequestReload("second")
	<-events
	if gap := time.Since(start); gap < 400*time.Millisecond {
		t.Errorf("second reload %v after the first request, want >= 400ms", gap)
	}
	select {
	case ev := <-events:
		t.Errorf("extra reload: %+v", ev)
	case <-time.After(100 * time.Millisecond):
	}
	t.Logf("first reload after %v", first)
	sym.Close()
	sym.RequestReload("after close")
	if err := sym.Reload("after close"); !errors.Is(err, ErrClosed) {
		t.Errorf("Reload after Close: %v", err)
	}
	if _, err := sym.Lookup(0xffffffff81000000); err != nil {
		t.Errorf("Lookup after Close: %v", err)
	}
}
