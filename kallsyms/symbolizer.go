package kallsyms

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures a Symbolizer. The zero value reads /proc/kallsyms and
// /sys with the default throttling.
type Config struct {
	// Kallsyms is the kallsyms file, DefaultPath when empty.
	Kallsyms string
	// Sysfs is the sysfs mount point, DefaultSysfs when empty.
	Sysfs string
	// NoSysfs skips module metadata from sysfs.
	NoSysfs bool
	// Data keeps data symbols too (see Options.Data).
	Data bool
	// Coalesce is how long a requested reload waits for more requests to
	// join it; 100ms when 0, none when negative.
	Coalesce time.Duration
	// MinInterval is the least time between the starts of two throttled
	// reloads; 1s when 0, none when negative.
	MinInterval time.Duration
	// OnReload, if set, is called after every reload attempt, from the
	// goroutine that ran it. It must not call Reload.
	OnReload func(ReloadEvent)
}

// ReloadEvent reports one reload attempt.
type ReloadEvent struct {
	// Reasons lists the requests the reload served (at most 16).
	Reasons []string
	// Snapshot is the current snapshot after the attempt: the new one, or
	// the old one when Err is set.
	Snapshot *Snapshot
	// Err is why the reload failed; the old snapshot stays in use.
	Err error
	// Duration is how long the attempt took.
	Duration time.Duration
	// Reused counts module tables shared with the previous snapshot.
	Reused int
}

// Symbolizer keeps the current Snapshot of the kernel's symbols and
// replaces it on reload. Readers call Snapshot (or Lookup), which is one
// atomic load: they never block, and never see a half-built snapshot.
// Reloads build the new snapshot beside the old one, reusing the tables of
// unchanged modules, and swap it in atomically; a failed reload keeps the
// old snapshot.
//
// A Symbolizer is safe for concurrent use. Close stops its background
// goroutine; Snapshot and Lookup keep working on the last snapshot after
// Close, while Reload returns ErrClosed.
type Symbolizer struct {
	cfg    Config
	cur    atomic.Pointer[Snapshot]
	mu     sync.Mutex // serializes reloads; readers never take it
	closed bool       // guarded by mu
	kick   chan struct{}
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once

	reqMu   sync.Mutex
	reasons []string
}

// Open loads the first snapshot and starts the goroutine that runs
// throttled reloads. It returns the load's error, and no Symbolizer, when
// that first load fails.
func Open(cfg Config) (*Symbolizer, error) {
	if cfg.Coalesce == 0 {
		cfg.Coalesce = 100 * time.Millisecond
	}
	if cfg.MinInterval == 0 {
		cfg.MinInterval = time.Second
	}
	s := &Symbolizer{cfg: cfg, kick: make(chan struct{}, 1), done: make(chan struct{})}
	snap, err := s.load(nil)
	if err != nil {
		return nil, err
	}
	s.cur.Store(snap)
	s.wg.Add(1)
	go s.loop()
	return s, nil
}

// Snapshot returns the current snapshot. It never blocks and never returns
// nil.
func (s *Symbolizer) Snapshot() *Snapshot { return s.cur.Load() }

// Lookup is s.Snapshot().Lookup(addr).
func (s *Symbolizer) Lookup(addr uint64) (Symbol, error) { return s.cur.Load().Lookup(addr) }

// load reads sysfs (concurrently) and kallsyms into a new snapshot.
func (s *Symbolizer) load(prev *Snapshot) (*Snapshot, error) {
	type result struct {
		infos []ModuleInfo
		err   error
	}
	ch := make(chan result, 1)
	if s.cfg.NoSysfs {
		ch <- result{}
	} else {
		go func() {
			infos, err := ReadModules(s.cfg.Sysfs)
			ch <- result{infos, err}
		}()
	}
	snap, err := Load(s.cfg.Kallsyms, &Options{Data: s.cfg.Data, Reuse: prev})
	r := <-ch
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.infos) > 0 {
		load := snap.load
		snap = snap.WithModules(r.infos)
		snap.load = load
	}
	return snap, nil
}

// Reload loads a new snapshot now, ignoring throttling, and swaps it in.
// On failure the old snapshot stays and the error is returned. After Close
// it returns ErrClosed.
func (s *Symbolizer) Reload(reason string) error {
	return s.reload([]string{reason})
}

func (s *Symbolizer) reload(reasons []string) error {
	select {
	case <-s.done:
		return ErrClosed
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	start := time.Now()
	old := s.cur.Load()
	snap, err := s.load(old)
	ev := ReloadEvent{Reasons: reasons, Snapshot: old, Duration: time.Since(start)}
	if err != nil {
		ev.Err = fmt.Errorf("kallsyms: reload: %w", err)
	} else {
		s.cur.Store(snap)
		ev.Snapshot, ev.Reused = snap, snap.Shares(old)
	}
	if s.cfg.OnReload != nil {
		s.cfg.OnReload(ev)
	}
	return ev.Err
}

// RequestReload asks for a throttled reload and returns at once: requests
// that arrive within Config.Coalesce of each other share one reload, and
// reloads start at least Config.MinInterval apart. Errors are reported to
// Config.OnReload. It does nothing after Close.
func (s *Symbolizer) RequestReload(reason string) {
	s.reqMu.Lock()
	if len(s.reasons) < 16 {
		s.reasons = append(s.reasons, reason)
	}
	s.reqMu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default: // a reload is already pending: this request joins it
	}
}

// loop runs throttled reloads until Close.
func (s *Symbolizer) loop() {
	defer s.wg.Done()
	var last time.Time
	for {
		select {
		case <-s.done:
			return
		case <-s.kick:
		}
		wait := s.cfg.Coalesce
		if next := time.Until(last.Add(s.cfg.MinInterval)); next > wait {
			wait = next
		}
		if wait > 0 && !s.sleep(wait) {
			return
		}
		select { // requests made while waiting are served by this reload
		case <-s.kick:
		default:
		}
		s.reqMu.Lock()
		reasons := s.reasons
		s.reasons = nil
		s.reqMu.Unlock()
		last = time.Now()
		_ = s.reload(reasons) // reported through OnReload
	}
}

// sleep waits for d or Close; it returns false on Close.
func (s *Symbolizer) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.done:
		return false
	}
}

// Close stops throttled reloads and any Watch, and waits for a reload in
// progress to finish. It is safe to call more than once; it always returns
// nil.
func (s *Symbolizer) Close() error {
	s.once.Do(func() { close(s.done) })
	s.wg.Wait()
	s.mu.Lock() // waits for a Reload running on another goroutine
	s.closed = true
	s.mu.Unlock()
	return nil
}
