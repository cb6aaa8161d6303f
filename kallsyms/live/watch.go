package live

import (
	"context"
	"errors"

	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/kallsyms"
	"github.com/kmeta-dev/kmeta/uevent"
)

// WatchOptions configures Symbolizer.Watch.
type WatchOptions struct {
	// Monitor configures the uevent socket (see uevent.Options; its
	// TrustPortIDs is for tests only).
	Monitor uevent.Options
	// Events, if set, is where Watch reads uevents instead of a socket it
	// opens with uevent.Listen: a fake in tests. Watch closes it.
	Events EventReader
	// OnEvent, if set, is called for every uevent read, from Watch's
	// goroutine. err is nil for an accepted event and matches
	// uevent.ErrUntrustedSender for an ignored one; after a receive-buffer
	// overflow it is called once with a zero Event and an error matching
	// uevent.ErrOverflow.
	OnEvent func(ev uevent.Event, err error)
}

// EventReader is what Watch reads uevents from: a *uevent.Monitor.
type EventReader interface {
	Read(ctx context.Context) (uevent.Event, error)
	Close() error
}

// Watch listens for module uevents until ctx ends or s is closed, and
// requests a throttled reload for every module add or remove event sent by
// the kernel, and a full resync reload when events were lost (ENOBUFS).
// Before that reload, on an add event it publishes at once a snapshot
// with the module's range from sysfs (sections/.text and coresize, unless
// Options.NoSysfs), so that the module's addresses resolve to the module
// and an offset while kallsyms has yet to be read; on a remove event,
// one without the module.
// Events from other senders and other subsystems cause no reload. It
// returns ctx.Err() when ctx ends, ErrClosed when s is closed, or the
// error that stopped the socket.
func (s *Symbolizer) Watch(ctx context.Context, opts WatchOptions) error {
	select {
	case <-s.done:
		return ErrClosed
	default:
	}
	m := opts.Events
	if m == nil {
		um, err := uevent.Listen(opts.Monitor)
		if err != nil {
			return pkgerr.Errorf("live: %w", err)
		}
		m = um
	}
	defer m.Close()
	exit := make(chan struct{})
	defer close(exit)
	go func() { // Close of s stops the monitor too
		select {
		case <-s.done:
			m.Close()
		case <-exit:
		}
	}()
	report := func(ev uevent.Event, err error) {
		if opts.OnEvent != nil {
			opts.OnEvent(ev, err)
		}
	}
	for {
		ev, err := m.Read(ctx)
		switch {
		case errors.Is(err, uevent.ErrUntrustedSender):
			report(ev, err)
			continue
		case errors.Is(err, uevent.ErrOverflow):
			report(ev, err)
			s.RequestReload("resync after lost uevents")
			continue
		case errors.Is(err, uevent.ErrClosed):
			return ErrClosed // s was closed, which closed the monitor
		case err != nil:
			return err
		}
		report(ev, nil)
		if ev.Subsystem == "module" && (ev.Action == "add" || ev.Action == "remove") {
			s.publishRange(ev.Action, ev.Module())
			s.RequestReload(ev.Action + " " + ev.Module())
		}
	}
}

// publishRange publishes, ahead of the reload that reads kallsyms, a
// snapshot with the range of a module just added (from sysfs) or without a
// module just removed. A module whose sysfs entry is unreadable, or whose
// .text address is hidden, is left to the reload.
func (s *Symbolizer) publishRange(action, name string) {
	if name == "" || name == kallsyms.Vmlinux || kallsyms.IsPseudoModule(name) {
		return
	}
	var info kallsyms.ModuleInfo
	if action == "add" {
		if s.opts.NoSysfs {
			return
		}
		var err error
		info, err = kallsyms.ReadModule(s.opts.Sysfs, name)
		if err != nil || info.Text == 0 || info.Size == 0 {
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	old := s.cur.Load()
	if action == "add" {
		s.cur.Store(old.WithModule(info))
	} else if n := old.Without(name); n != old {
		s.cur.Store(n)
	}
}
