package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kallsyms"
	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
	"github.com/kmeta-dev/kmeta/uevent"
)

// fakeKsyms hands a Symbolizer the event batches of a channel.
type fakeKsyms struct {
	ch     chan []KsymEvent
	closed chan struct{}
	once   sync.Once
}

func newFakeKsyms() *fakeKsyms {
	return &fakeKsyms{ch: make(chan []KsymEvent), closed: make(chan struct{})}
}

func (f *fakeKsyms) Read(ctx context.Context, dst []KsymEvent) ([]KsymEvent, error) {
	select {
	case evs := <-f.ch:
		return append(dst, evs...), nil
	case <-ctx.Done():
		return dst, ctx.Err()
	case <-f.closed:
		return dst, ErrClosed
	}
}

func (f *fakeKsyms) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

// ksymEnv is a Symbolizer over a kallsyms file and fake ksymbol events;
// applied receives every event once its batch is applied.
type ksymEnv struct {
	sym     *Symbolizer
	fake    *fakeKsyms
	applied chan KsymEvent
	reloads chan ReloadEvent
	path    string
}

func newKsymEnv(t *testing.T, text string, data bool) *ksymEnv {
	t.Helper()
	e := &ksymEnv{fake: newFakeKsyms(), applied: make(chan KsymEvent, 100), reloads: make(chan ReloadEvent, 100),
		path: filepath.Join(t.TempDir(), "kallsyms")}
	ksymtest.WriteAtomic(t, e.path, []byte(text))
	var err error
	e.sym, err = NewSymbolizer(Options{Kallsyms: e.path, NoSysfs: true, Data: data, KsymEvents: e.fake,
		Coalesce: time.Millisecond, MinInterval: -1,
		OnKsym:   func(ev KsymEvent) { e.applied <- ev },
		OnReload: func(ev ReloadEvent) { e.reloads <- ev }})

	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.sym.Close() })
	if err := e.sym.KsymEventsErr(); err != nil {
		t.Fatalf("KsymEventsErr with a fake reader: %v", err)
	}
	return e
}

// send hands over one batch and waits until it is applied.
func (e *ksymEnv) send(t *testing.T, evs ...KsymEvent) {
	t.Helper()
	e.fake.ch <- evs
	for range evs {
		select {
		case <-e.applied:
		case <-time.After(10 * time.Second):
			t.Fatal("batch not applied")
		}
	}
}

func add(name string, addr uint64, size uint32, time uint64) KsymEvent {
	return KsymEvent{Op: KsymAdd, Type: KsymTypeBPF, Name: name, Addr: addr, Len: size, Time: time}
}

func remove(name string, addr uint64, size uint32, time uint64) KsymEvent {
	return KsymEvent{Op: KsymRemove, Type: KsymTypeBPF, Name: name, Addr: addr, Len: size, Time: time}
}

// expect checks the lookups of addrs: a symbol name, or "" for an address
// that must not resolve to any BPF symbol.
func expect(t *testing.T, s *kallsyms.Snapshot, want map[uint64]string) {
	t.Helper()
	for a, name := range want {
		sym, err := s.Lookup(a)
		switch {
		case name == "" && (err == nil && sym.Module == kallsyms.BPF && sym.Name != ""):
			t.Errorf("Lookup(%#x) = %s+%#x [%s], want no kallsyms.BPF symbol", a, sym.Name, sym.Offset, sym.Module)
		case name != "" && (err != nil || sym.Name != name || sym.Module != kallsyms.BPF):
			t.Errorf("Lookup(%#x) = %+v, %v; want %s [bpf]", a, sym, err, name)
		}
	}
}

const (
	progA = "bpf_prog_6deef7357e7b4530_a"
	progB = "bpf_prog_6deef7357e7b4530_b"
	progC = "bpf_prog_6deef7357e7b4530_c"
	pA    = 0xffffffffc0001000
	pB    = 0xffffffffc0001100
	pC    = 0xffffffffc0003000
)

// TestKsymPatch applies additions and removals to the BPF table without a
// reload: added programs resolve at once, over their whole length only;
// removed ones no longer resolve to their names; a program listed in the
// first kallsyms read is removed by its event too.
func TestKsymPatch(t *testing.T) {
	for _, data := range []bool{false, true} {
		t.Run(fmt.Sprintf("data=%v", data), func(t *testing.T) {
			e := newKsymEnv(t, baseKallsyms+fmt.Sprintf("%x t %s\t[bpf]\n", uint64(pC), progC), data)
			first := e.sym.Snapshot()
			expect(t, first, map[uint64]string{pC + 4: progC, pA: ""})
			e.send(t, add(progA, pA, 0x40, 0), add(progB, pB, 0x20, 0))
			expect(t, e.sym.Snapshot(), map[uint64]string{pA: progA, pA + 0x3f: progA, pA + 0x40: "", pB + 0x1f: progB, pB + 0x20: "", pC + 8: progC})
			if sym, _ := e.sym.Lookup(0xffffffff81000010); sym.Name != "foo" {
				t.Errorf("vmlinux lookup after a patch: %+v", sym)
			}
			e.send(t, remove(progA, pA, 0x40, 0), remove(progC, pC, 0x10, 0))
			s := e.sym.Snapshot()
			expect(t, s, map[uint64]string{pA: "", pA + 8: "", pB: progB, pC: "", pC + 8: ""})
			if m, err := s.Module(kallsyms.BPF); err != nil || m.Symbols != 1 {
				t.Errorf("bpf module after removals: %+v, %v", m, err)
			}
			expect(t, first, map[uint64]string{pC + 4: progC}) // old snapshots stay as they were
			e.send(t, remove(progB, pB, 0x20, 0))
			if _, err := e.sym.Snapshot().Module(kallsyms.BPF); !errors.Is(err, kallsyms.ErrNotFound) {
				t.Errorf("empty bpf module still listed: %v", err)
			}
			select {
			case r := <-e.reloads:
				t.Errorf("a reload while patching: %+v", r)
			default:
			}
			if n := e.sym.patches.Load(); n != 3 {
				t.Errorf("%d patches, want 3", n)
			}
		})
	}
}

// TestKsymOrder checks that an event older than what its address last
// saw is ignored: a removal read (from one CPU's ring) before the older
// addition (from another's) leaves the symbol removed, and an address
// reused by a newer program keeps the newer name.
func TestKsymOrder(t *testing.T) {
	e := newKsymEnv(t, baseKallsyms, false)
	e.send(t, remove(progA, pA, 0x40, 200))
	e.send(t, add(progA, pA, 0x40, 100))
	expect(t, e.sym.Snapshot(), map[uint64]string{pA: ""})
	e.send(t, add(progB, pA, 0x40, 300), remove(progA, pA, 0x40, 250))
	expect(t, e.sym.Snapshot(), map[uint64]string{pA: progB})
}

// TestKsymLost checks that lost events, and out-of-line code, make one
// throttled reload each burst, which rereads kallsyms and replaces the
// live set.
func TestKsymLost(t *testing.T) {
	e := newKsymEnv(t, baseKallsyms, false)
	e.send(t, add(progA, pA, 0x40, 0))
	ksymtest.WriteAtomic(t, e.path, []byte(baseKallsyms+fmt.Sprintf("%x t %s\t[bpf]\n", uint64(pB), progB)))
	e.send(t, KsymEvent{Op: KsymLost, Lost: 3}, KsymEvent{Op: KsymLost, Lost: 2})
	select {
	case r := <-e.reloads:
		if r.Err != nil || len(r.Reasons) != 1 || r.Reasons[0] != "resync after 5 lost ksymbol events" {
			t.Errorf("reload %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after lost events")
	}
	expect(t, e.sym.Snapshot(), map[uint64]string{pA: "", pB: progB})
	// The events after the reload patch its table.
	e.send(t, remove(progB, pB, 0, 0), add(progC, pC, 0x10, 0))
	expect(t, e.sym.Snapshot(), map[uint64]string{pB: "", pC: progC})
	e.send(t, KsymEvent{Op: KsymAdd, Type: KsymTypeOOL, Name: "ftrace_trampoline", Addr: 0xffffffffa0000000, Len: 4096})
	select {
	case r := <-e.reloads:
		if r.Err != nil {
			t.Errorf("reload %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after out-of-line code")
	}
}

// TestKsymOff checks that a Symbolizer of a kallsyms file does not follow
// the running kernel's events, and says so.
func TestKsymOff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kallsyms")
	ksymtest.WriteAtomic(t, path, []byte(baseKallsyms))
	for _, cfg := range []Options{{Kallsyms: path, NoSysfs: true}, {NoKsymEvents: true, NoSysfs: true, Kallsyms: path}} {
		sym, err := NewSymbolizer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := sym.KsymEventsErr(); !errors.Is(err, ErrNoKsymEvents) {
			t.Errorf("KsymEventsErr = %v, want ErrNoKsymEvents", err)
		} else {
			t.Log(err)
		}
		sym.Close()
	}
}

// TestKsymUnavailable checks the fallback where perf events cannot be
// opened (here a seam fails as perf_event_open does without
// CAP_PERFMON): Open succeeds, KsymEventsErr says why, matching both
// ErrNoKsymEvents and os.ErrPermission, and module reloads keep working.
func TestKsymUnavailable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kallsyms")
	ksymtest.WriteAtomic(t, path, []byte(baseKallsyms))
	sym, err := newSymbolizer(Options{Kallsyms: path, NoSysfs: true}, func() (KsymReader, error) {
		return nil, fmt.Errorf("perfevent: perf_event_open on cpu 0: %w", syscall.EACCES)
	})

	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	kerr := sym.KsymEventsErr()
	if !errors.Is(kerr, ErrNoKsymEvents) || !errors.Is(kerr, os.ErrPermission) {
		t.Errorf("KsymEventsErr = %v", kerr)
	}
	ksymtest.WriteAtomic(t, path, []byte(withModuleX))
	if err := sym.Reload("module x"); err != nil {
		t.Fatal(err)
	}
	if got, err := sym.Lookup(0xffffffffc0000000); err != nil || got.Name != "x_fn" {
		t.Errorf("after a reload: %+v, %v", got, err)
	}
}

// TestModuleRangeFirst checks that a module add event publishes the
// module's range from sysfs at once, so that its addresses resolve to the
// module before kallsyms lists its symbols, and that a remove event drops
// the module at once; the reload that follows reads kallsyms. The sysfs
// tree is the synthetic fixture's; the events are injected.
func TestModuleRangeFirst(t *testing.T) {
	dir, fixture := t.TempDir(), t.TempDir()
	if err := ksymtest.ExtractTar(fixture, testfixtures.ReadPath(t, "../testdata/synthetic-sysfs.tar.gz"), "sys/module/synmod050"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sys", "module"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kallsyms")
	ksymtest.WriteAtomic(t, path, []byte(baseKallsyms))
	reloads := make(chan ReloadEvent, 10)
	sym, err := NewSymbolizer(Options{Kallsyms: path, Sysfs: filepath.Join(dir, "sys"), Coalesce: time.Hour, MinInterval: -1,
		OnReload: func(ev ReloadEvent) { reloads <- ev }})

	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	// The module appears in sysfs after Open, as a loaded module does.
	if err := os.Rename(filepath.Join(fixture, "sys", "module", "synmod050"), filepath.Join(dir, "sys", "module", "synmod050")); err != nil {
		t.Fatal(err)
	}
	ev := &fakeEvents{ch: make(chan uevent.Event), closed: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- sym.Watch(context.Background(), WatchOptions{Events: ev}) }()
	// settle sends an event of another subsystem: once Watch reads it, it
	// has handled the event before.
	settle := func() {
		ev.ch <- uevent.Event{Action: "change", DevPath: "/devices/virtual/mem/null", Subsystem: "mem"}
	}
	const text = 0xffffffffc0878000 // synmod050's sections/.text; coresize 167936
	if _, err := sym.Lookup(text + 0x10); !errors.Is(err, kallsyms.ErrNotFound) {
		t.Fatalf("before the event: %v", err)
	}
	ev.ch <- uevent.Event{Action: "add", DevPath: "/module/synmod050", Subsystem: "module"}
	settle()
	got, err := sym.Lookup(text + 0x10)
	if err != nil || got.Module != "synmod050" || got.Name != "" || got.Addr != text || got.Offset != 0x10 {
		t.Errorf("after the add event: %+v, %v; want synmod050+0x10", got, err)
	}
	if m, err := sym.Snapshot().Module("synmod050"); err != nil || m.Start != text || m.End != text+167936 || m.State != "live" {
		t.Errorf("module %+v, %v", m, err)
	}
	if _, err := sym.Lookup(text + 167936); !errors.Is(err, kallsyms.ErrNotFound) {
		t.Errorf("past coresize: %v", err)
	}
	select {
	case r := <-reloads:
		t.Fatalf("reloaded already: %+v", r)
	default:
	}
	ksymtest.WriteAtomic(t, path, []byte(withModuleX)) // kallsyms now lists module x, not synmod050
	if err := sym.Reload("test"); err != nil {
		t.Fatal(err)
	}
	<-reloads
	ev.ch <- uevent.Event{Action: "remove", DevPath: "/module/x", Subsystem: "module"}
	settle()
	if got, err := sym.Lookup(0xffffffffc0000000); !errors.Is(err, kallsyms.ErrNotFound) {
		t.Errorf("module x after its remove event: %+v, %v", got, err)
	}
	sym.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Watch: %v", err)
	}
}
