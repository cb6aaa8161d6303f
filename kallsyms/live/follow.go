package live

import (
	"context"
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/perfevent"
	"github.com/kmeta-dev/kmeta/kallsyms"
)

// resyncSlack is how far before a reload's start the events that the
// reload's read of kallsyms may not show yet are still applied: the kernel
// sends a program's unregister event just before it removes the symbol
// from kallsyms.
const resyncSlack = 50e6 // ns

// perfKsyms is the default KsymReader: perf events of every online CPU.
type perfKsyms struct {
	r    *perfevent.Reader
	recs []perfevent.Record
}

// openPerfKsyms opens the perf events, or says why it cannot.
func openPerfKsyms() (KsymReader, error) {
	r, err := perfevent.Open(nil)
	if err != nil {
		return nil, err
	}
	return &perfKsyms{r: r}, nil
}

// Read implements KsymReader: ksymbol and lost records become events;
// other records are skipped.
func (p *perfKsyms) Read(ctx context.Context, dst []KsymEvent) ([]KsymEvent, error) {
	for {
		var err error
		p.recs, err = p.r.Read(ctx, p.recs[:0])
		if errors.Is(err, perfevent.ErrClosed) {
			return dst, ErrClosed
		}
		if err != nil {
			return dst, err
		}
		n := len(dst)
		for i := range p.recs {
			r := &p.recs[i]
			switch r.Type {
			case perfevent.RecordKsymbol:
				op := KsymAdd
				if r.Unregister() {
					op = KsymRemove
				}
				dst = append(dst, KsymEvent{Op: op, Type: r.KsymType, Name: r.Name, Addr: r.Addr, Len: r.Len, Time: r.Time})
			case perfevent.RecordLost:
				dst = append(dst, KsymEvent{Op: KsymLost, Lost: r.Lost, Time: r.Time})
			}
		}
		if len(dst) > n {
			return dst, nil
		}
	}
}

// Close implements KsymReader.
func (p *perfKsyms) Close() error { return p.r.Close() }

// startKsyms decides whether s follows ksymbol events, and opens their
// reader before the first load so that no event falls between the two.
// It sets s.ksym or s.ksymErr.
func (s *Symbolizer) startKsyms() {
	switch {
	case s.opts.KsymEvents != nil:
		s.ksym = s.opts.KsymEvents
		return
	case s.opts.NoKsymEvents:
		s.ksymErr = fmt.Errorf("%w: Options.NoKsymEvents is set", ErrNoKsymEvents)
		return
	case s.opts.Kallsyms != "" && s.opts.Kallsyms != kallsyms.DefaultPath && s.openKsyms == nil:
		s.ksymErr = fmt.Errorf("%w: %s is not the running kernel's %s", ErrNoKsymEvents, s.opts.Kallsyms, kallsyms.DefaultPath)
		return
	}
	open := s.openKsyms
	if open == nil {
		open = openPerfKsyms
	}
	r, err := open()
	if err != nil {
		s.ksymErr = fmt.Errorf("%w: %w", ErrNoKsymEvents, err)
		return
	}
	s.ksym, s.now = r, perfevent.Now
}

// KsymEventsErr reports whether s follows ksymbol events (BPF programs
// loaded and unloaded): nil if it does, else an error wrapping
// ErrNoKsymEvents that says why not (Options.NoKsymEvents, a kallsyms file
// that is not the running kernel's, or perf events unavailable: no
// permission, kernel.perf_event_paranoid, not Linux, an old kernel). Then
// the BPF pseudo-module is current only after reloads, as module uevents
// or RequestReload cause them. After the ksymbol reader fails, it returns
// that failure.
func (s *Symbolizer) KsymEventsErr() error {
	s.ksymMu.Lock()
	defer s.ksymMu.Unlock()
	return s.ksymErr
}

// follow reads ksymbol events until Close and applies them.
func (s *Symbolizer) follow() {
	defer s.wg.Done()
	var evs []KsymEvent
	for {
		var err error
		evs, err = s.ksym.Read(s.ctx, evs[:0])
		if err != nil {
			if s.ctx.Err() == nil && !errors.Is(err, ErrClosed) {
				s.ksymMu.Lock()
				s.ksymErr = fmt.Errorf("%w: reading ksymbol events: %w", ErrNoKsymEvents, err)
				s.ksymMu.Unlock()
				s.RequestReload("ksymbol events stopped")
			}
			return
		}
		s.applyKsyms(evs)
	}
}

// applyKsyms applies a batch of events: BPF symbols patch the BPF table
// in a new snapshot, published once for the batch; lost events and
// out-of-line code (which belongs to the __builtin__ pseudo-modules) ask
// for a throttled reload instead.
func (s *Symbolizer) applyKsyms(evs []KsymEvent) {
	var lost, other uint64
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	changed := false
	for i := range evs {
		ev := &evs[i]
		switch {
		case ev.Op == KsymLost:
			lost += max(ev.Lost, 1)
		case ev.Type != KsymTypeBPF:
			other++
		case ev.Op == KsymAdd || ev.Op == KsymRemove:
			changed = s.live.apply(ev) || changed
		}
	}
	if changed {
		s.live.prune()
		s.cur.Store(s.cur.Load().WithSymbols(kallsyms.BPF, s.live.symbols()))
		s.patches.Add(1)
	}
	s.mu.Unlock()
	if s.opts.OnKsym != nil {
		for i := range evs {
			s.opts.OnKsym(evs[i])
		}
	}
	switch {
	case lost > 0:
		s.RequestReload(fmt.Sprintf("resync after %d lost ksymbol events", lost))
	case other > 0:
		s.RequestReload("out-of-line code registered or unregistered")
	}
}
