package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kallsyms"
	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
	"github.com/kmeta-dev/kmeta/uevent"
	"golang.org/x/sys/unix"
)

const netnsEnv = "KALLSYMS_TEST_IN_NETNS"

// TestMonitorEndToEnd runs the uevent tests in a private network namespace
// (so injected events reach nobody else): it re-executes the test binary
// under "unshare -n". It needs root.
func TestMonitorEndToEnd(t *testing.T) {
	if os.Getenv(netnsEnv) == "1" {
		t.Run("KernelEvent", testKernelEvent)
		t.Run("InjectedIgnored", testInjectedIgnored)
		t.Run("InjectedTrusted", testInjectedTrusted)
		t.Run("Overflow", testOverflow)
		t.Run("WatchResync", testWatchResync)
		t.Run("RangeFirst", testRangeFirst)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (unshare -n, sending uevents)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not found")
	}
	t.Parallel() // it waits on the test binary run again
	cmd := exec.Command(unshare, "-n", os.Args[0], "-test.run=^TestMonitorEndToEnd$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), netnsEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("in netns:\n%s", out)
	if err != nil && strings.HasPrefix(string(out), "unshare: ") {
		t.Skipf("cannot create a network namespace: %s", out)
	}
	if err != nil {
		t.Fatalf("unshare -n: %v", err)
	}
}

// triggerKernelEvent makes the kernel send a "change" uevent for
// /dev/null (SUBSYSTEM=mem).
func triggerKernelEvent(tb testing.TB) {
	tb.Helper()
	if err := os.WriteFile("/sys/devices/virtual/mem/null/uevent", []byte("change"), 0); err != nil {
		tb.Fatal(err)
	}
}

func isNullChange(ev uevent.Event) bool {
	return ev.Action == "change" && ev.Subsystem == "mem" && ev.DevPath == "/devices/virtual/mem/null"
}

func testKernelEvent(t *testing.T) {
	m, err := uevent.Listen(uevent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	triggerKernelEvent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		ev, err := m.Read(ctx)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if isNullChange(ev) {
			if ev.PortID != 0 || ev.Seqnum == 0 {
				t.Errorf("kernel event %+v", ev)
			}
			break
		}
	}
	// Cancellation and Close stop a blocked Read.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := m.Read(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read after deadline: %v", err)
	}
	go func() { time.Sleep(50 * time.Millisecond); m.Close() }()
	if _, err := m.Read(context.Background()); !errors.Is(err, uevent.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
}

// injector sends uevents to group 1 from its own netlink socket.
type injector struct {
	fd   int
	port uint32
}

func newInjector(tb testing.TB) *injector {
	tb.Helper()
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_KOBJECT_UEVENT)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		tb.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		tb.Fatal(err)
	}
	return &injector{fd: fd, port: sa.(*unix.SockaddrNetlink).Pid}
}

func (in *injector) send(tb testing.TB, action, module string) {
	tb.Helper()
	msg := fmt.Sprintf("%s@/module/%s\x00ACTION=%[1]s\x00DEVPATH=/module/%[2]s\x00SUBSYSTEM=module\x00SEQNUM=1\x00", action, module)
	if err := unix.Sendto(in.fd, []byte(msg), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: 1}); err != nil {
		tb.Fatal(err)
	}
}

// watchEnv is a Symbolizer over temporary files and a running Watch.
type watchEnv struct {
	dir, kallsyms, sysfs string
	sym                  *Symbolizer
	reloads              chan ReloadEvent
	events               chan error // per uevent: nil or why it was ignored
	kernel               chan uevent.Event
	overflow             chan struct{} // closed on the first uevent.ErrOverflow
	watchErr             chan error
	cancel               context.CancelFunc
}

func startWatch(t *testing.T, trust []uint32) *watchEnv {
	t.Helper()
	return startWatchWith(t, uevent.Options{TrustPortIDs: trust})
}

func startWatchWith(t *testing.T, mopts uevent.Options) *watchEnv {
	t.Helper()
	return startWatchCoalesce(t, mopts, 10*time.Millisecond)
}

// startWatchCoalesce is startWatchWith with the Symbolizer's
// Options.Coalesce.
func startWatchCoalesce(t *testing.T, mopts uevent.Options, coalesce time.Duration) *watchEnv {
	t.Helper()
	dir := t.TempDir()
	e := &watchEnv{dir: dir, kallsyms: filepath.Join(dir, "kallsyms"), sysfs: filepath.Join(dir, "sys"),
		reloads: make(chan ReloadEvent, 10), events: make(chan error, 100), kernel: make(chan uevent.Event, 10),
		overflow: make(chan struct{}), watchErr: make(chan error, 1)}
	var overflowed sync.Once
	ksymtest.WriteAtomic(t, e.kallsyms, []byte(baseKallsyms))
	var err error
	e.sym, err = NewSymbolizer(Options{Kallsyms: e.kallsyms, Sysfs: e.sysfs, Coalesce: coalesce, MinInterval: -1,
		OnReload: func(ev ReloadEvent) { e.reloads <- ev }})

	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() {
		e.watchErr <- e.sym.Watch(ctx, WatchOptions{Monitor: mopts, OnEvent: func(ev uevent.Event, err error) {
			switch {
			case isNullChange(ev):
				e.kernel <- ev
			case errors.Is(err, uevent.ErrOverflow):
				overflowed.Do(func() { close(e.overflow) })
			default:
				select {
				case e.events <- err:
				default: // a flood; the tests that count events send few
				}
			}
		}})
	}()
	e.syncKernel(t) // the watch is listening once a kernel event arrives
	return e
}

// syncKernel triggers kernel events until Watch reports one: every event
// queued before it has then been handled.
func (e *watchEnv) syncKernel(t *testing.T) {
	t.Helper()
	for range 50 {
		triggerKernelEvent(t)
		select {
		case ev := <-e.kernel:
			if ev.PortID != 0 {
				t.Fatalf("kernel event with port id %d", ev.PortID)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("no kernel uevent arrived")
}

func (e *watchEnv) stop(t *testing.T, close bool) {
	t.Helper()
	if close {
		e.sym.Close()
	} else {
		e.cancel()
	}
	select {
	case err := <-e.watchErr:
		want := context.Canceled
		if close {
			want = ErrClosed
		}
		if !errors.Is(err, want) {
			t.Errorf("Watch returned %v, want %v", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not stop")
	}
	e.cancel()
	e.sym.Close()
}

func testInjectedIgnored(t *testing.T) {
	e := startWatch(t, nil)
	in := newInjector(t)
	ksymtest.WriteAtomic(t, e.kallsyms, []byte(withModuleX))
	in.send(t, "add", "x")
	e.syncKernel(t)
	select {
	case err := <-e.events:
		if !errors.Is(err, uevent.ErrUntrustedSender) {
			t.Errorf("injected event: %v, want uevent.ErrUntrustedSender", err)
		}
	default:
		t.Fatal("injected event not seen")
	}
	select {
	case ev := <-e.reloads:
		t.Fatalf("untrusted event caused a reload: %+v", ev)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := e.sym.Snapshot().Module("x"); !errors.Is(err, kallsyms.ErrNotFound) {
		t.Errorf("module x appeared: %v", err)
	}
	e.stop(t, false)
}

func testInjectedTrusted(t *testing.T) {
	in := newInjector(t)
	e := startWatch(t, []uint32{in.port})
	ksymtest.WriteAtomic(t, e.kallsyms, []byte(withModuleX))
	in.send(t, "add", "x")
	ev := waitReload(t, e)
	if sym, err := ev.Snapshot.Lookup(0xffffffffc0000004); err != nil || sym.Module != "x" || sym.Name != "x_fn" {
		t.Errorf("after add: %+v, %v", sym, err)
	}
	if ev.Reasons[0] != "add x" || ev.Reused != 1 {
		t.Errorf("reload event %+v", ev)
	}
	ksymtest.WriteAtomic(t, e.kallsyms, []byte(baseKallsyms))
	in.send(t, "remove", "x")
	waitReload(t, e)
	if _, err := e.sym.Snapshot().Module("x"); !errors.Is(err, kallsyms.ErrNotFound) {
		t.Errorf("module x still there: %v", err)
	}
	if err := <-e.events; err != nil {
		t.Errorf("trusted event reported %v", err)
	}
	e.stop(t, true)
}

func waitReload(t *testing.T, e *watchEnv) ReloadEvent {
	t.Helper()
	select {
	case ev := <-e.reloads:
		if ev.Err != nil {
			t.Fatal(ev.Err)
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no reload")
	}
	return ReloadEvent{}
}

// testRangeFirst: a module's add uevent, sent through the kernel's
// uevent socket (from a trusted injector), publishes the module's range
// from sysfs (the synthetic fixture's synmod050) before any reload: the
// reload that it requests waits an hour here. Its remove uevent drops it.
func testRangeFirst(t *testing.T) {
	in := newInjector(t)
	e := startWatchCoalesce(t, uevent.Options{TrustPortIDs: []uint32{in.port}}, time.Hour)
	fixture := t.TempDir()
	if err := ksymtest.ExtractTar(fixture, testfixtures.ReadPath(t, "../testdata/synthetic-sysfs.tar.gz"), "sys/module/synmod050"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.sysfs, "module"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(fixture, "sys", "module", "synmod050"), filepath.Join(e.sysfs, "module", "synmod050")); err != nil {
		t.Fatal(err)
	}
	const text = 0xffffffffc0878000 // synmod050's sections/.text
	in.send(t, "add", "synmod050")
	e.syncKernel(t) // the kernel's event comes after the injected one
	if sym, err := e.sym.Lookup(text + 0x10); err != nil || sym.Module != "synmod050" || sym.Offset != 0x10 {
		t.Errorf("after the add uevent: %+v, %v", sym, err)
	}
	in.send(t, "remove", "synmod050")
	e.syncKernel(t)
	if _, err := e.sym.Snapshot().Module("synmod050"); !errors.Is(err, kallsyms.ErrNotFound) {
		t.Errorf("after the remove uevent: %v", err)
	}
	select {
	case ev := <-e.reloads:
		t.Errorf("a reload, %+v: the range came from it, not first", ev)
	default:
	}
	e.stop(t, true)
}

// testWatchResync: module x is loaded, but its uevent is lost in a flood
// that overflows Watch's receive buffer. The overflow makes Watch resync,
// and the reload finds x. The flood comes from an untrusted sender, so
// nothing else could have caused the reload.
func testWatchResync(t *testing.T) {
	in := newInjector(t)
	e := startWatchWith(t, uevent.Options{ReceiveBuffer: 4096})
	ksymtest.WriteAtomic(t, e.kallsyms, []byte(withModuleX))
	deadline := time.Now().Add(10 * time.Second)
flood:
	for {
		for range 500 {
			in.send(t, "add", "flood")
		}
		select {
		case <-e.overflow:
			break flood
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no overflow reported")
		}
	}
	ev := waitReload(t, e)
	if !slices.Contains(ev.Reasons, "resync after lost uevents") {
		t.Errorf("reload reasons %q, want the resync", ev.Reasons)
	}
	if sym, err := ev.Snapshot.Lookup(0xffffffffc0000004); err != nil || sym.Module != "x" || sym.Name != "x_fn" {
		t.Errorf("after resync: %+v, %v", sym, err)
	}
	e.stop(t, false)
}

// testOverflow floods a monitor with a tiny receive buffer: Read reports
// uevent.ErrOverflow, and the monitor keeps working.
func testOverflow(t *testing.T) {
	in := newInjector(t)
	m, err := uevent.Listen(uevent.Options{TrustPortIDs: []uint32{in.port}, ReceiveBuffer: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for range 200 {
		in.send(t, "add", "flood")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	overflow := false
	for !overflow {
		_, err := m.Read(ctx)
		if errors.Is(err, uevent.ErrOverflow) {
			overflow = true
		} else if err != nil {
			t.Fatalf("Read: %v", err)
		}
	}
	// Once the flood is drained, kernel events get through again.
	for {
		triggerKernelEvent(t)
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		ev, err := m.Read(short)
		cancel()
		if err != nil && !errors.Is(err, uevent.ErrOverflow) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Read after overflow: %v", err)
		}
		if isNullChange(ev) {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no kernel event after overflow")
		}
	}
}
