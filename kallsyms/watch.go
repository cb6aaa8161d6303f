package kallsyms

import (
	"context"
	"errors"
)

// WatchOptions configures Symbolizer.Watch.
type WatchOptions struct {
	// Monitor configures the uevent socket (see MonitorOptions; its
	// TrustPortIDs is for tests only).
	Monitor MonitorOptions
	// OnEvent, if set, is called for every uevent read, from Watch's
	// goroutine. err is nil for an accepted event and matches
	// ErrUntrustedSender for an ignored one; after a receive-buffer
	// overflow it is called once with a zero Uevent and an error matching
	// ErrOverflow.
	OnEvent func(ev Uevent, err error)
}

// Watch listens for module uevents until ctx ends or s is closed, and
// requests a throttled reload for every module add or remove event sent by
// the kernel, and a full resync reload when events were lost (ENOBUFS).
// Events from other senders and other subsystems cause no reload. It
// returns ctx.Err() when ctx ends, ErrClosed when s is closed, or the
// error that stopped the socket.
func (s *Symbolizer) Watch(ctx context.Context, opts WatchOptions) error {
	select {
	case <-s.done:
		return ErrClosed
	default:
	}
	m, err := ListenUevents(opts.Monitor)
	if err != nil {
		return err
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
	report := func(ev Uevent, err error) {
		if opts.OnEvent != nil {
			opts.OnEvent(ev, err)
		}
	}
	for {
		ev, err := m.Read(ctx)
		switch {
		case errors.Is(err, ErrUntrustedSender):
			report(ev, err)
			continue
		case errors.Is(err, ErrOverflow):
			report(ev, err)
			s.RequestReload("resync after lost uevents")
			continue
		case err != nil:
			return err
		}
		report(ev, nil)
		if ev.Subsystem == "module" && (ev.Action == "add" || ev.Action == "remove") {
			s.RequestReload(ev.Action + " " + ev.Module())
		}
	}
}
