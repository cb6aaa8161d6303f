package live

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
	"github.com/kmeta-dev/kmeta/uevent"
)

const baseKallsyms = "ffffffff81000000 T _stext\nffffffff81000010 t foo\n"
const withModuleX = baseKallsyms + "ffffffffc0000000 t x_fn\t[x]\n"

// fakeEvents hands Watch the events of a channel.
type fakeEvents struct {
	ch     chan uevent.Event
	closed chan struct{}
}

func (f *fakeEvents) Read(ctx context.Context) (uevent.Event, error) {
	select {
	case ev := <-f.ch:
		if ev.PortID != 0 {
			return ev, uevent.ErrUntrustedSender
		}
		return ev, nil
	case <-ctx.Done():
		return uevent.Event{}, ctx.Err()
	case <-f.closed:
		return uevent.Event{}, uevent.ErrClosed
	}
}

func (f *fakeEvents) Close() error {
	select {
	case <-f.closed:
	default:
		close(f.closed)
	}
	return nil
}

// TestWatchFake runs Watch over fake events, without a socket: a module
// event from the kernel reloads, one from another sender and an event of
// another subsystem do not, and closing the Symbolizer ends Watch with
// ErrClosed.
func TestWatchFake(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kallsyms")
	ksymtest.WriteAtomic(t, path, []byte(baseKallsyms))
	reloads := make(chan ReloadEvent, 10)
	sym, err := NewSymbolizer(Options{Kallsyms: path, NoSysfs: true, Coalesce: time.Millisecond, MinInterval: -1,
		OnReload: func(ev ReloadEvent) { reloads <- ev }})

	if err != nil {
		t.Fatal(err)
	}
	ev := &fakeEvents{ch: make(chan uevent.Event), closed: make(chan struct{})}
	seen := make(chan error, 10)
	done := make(chan error, 1)
	go func() {
		done <- sym.Watch(context.Background(), WatchOptions{Events: ev, OnEvent: func(_ uevent.Event, err error) { seen <- err }})
	}()
	ev.ch <- uevent.Event{Action: "add", DevPath: "/module/evil", Subsystem: "module", PortID: 9}
	ev.ch <- uevent.Event{Action: "change", DevPath: "/devices/virtual/mem/null", Subsystem: "mem"}
	if err := <-seen; !errors.Is(err, uevent.ErrUntrustedSender) {
		t.Errorf("forged event: %v", err)
	}
	if err := <-seen; err != nil {
		t.Errorf("mem event: %v", err)
	}
	select {
	case r := <-reloads:
		t.Fatalf("reload without a module event: %+v", r)
	default:
	}
	ksymtest.WriteAtomic(t, path, []byte(withModuleX))
	ev.ch <- uevent.Event{Action: "add", DevPath: "/module/x", Subsystem: "module"}
	select {
	case r := <-reloads:
		if r.Err != nil || len(r.Reasons) == 0 || r.Reasons[0] != "add x" {
			t.Errorf("reload %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after a module event")
	}
	sym.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Watch after Close: %v", err)
	}
}

// TestReloadMaxSize: Options.MaxSize bounds every reload, not only the
// first load: a kallsyms file grown past it fails the reload with the
// input limit's error, and the old snapshot stays.
func TestReloadMaxSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kallsyms")
	ksymtest.WriteAtomic(t, path, []byte(baseKallsyms))
	var failed []error
	sym, err := NewSymbolizer(Options{Kallsyms: path, NoSysfs: true, MaxSize: int64(len(baseKallsyms)),
		OnReload: func(ev ReloadEvent) { failed = append(failed, ev.Err) }})
	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	old := sym.Snapshot()
	ksymtest.WriteAtomic(t, path, []byte(withModuleX))
	if err := sym.Reload("grown"); !errors.Is(err, input.ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("reload of %d bytes under a limit of %d: %v, want the input limit's error naming the file", len(withModuleX), len(baseKallsyms), err)
	}
	if sym.Snapshot() != old {
		t.Error("a failed reload replaced the snapshot")
	}
	if len(failed) != 1 || !errors.Is(failed[0], input.ErrTooLarge) {
		t.Errorf("OnReload saw %v", failed)
	}
}
