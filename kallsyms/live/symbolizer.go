package live

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kmeta-dev/kmeta/kallsyms"
)

// ErrClosed is returned by methods of a Symbolizer after Close.
var ErrClosed = errors.New("live: closed")

// Options configures a Symbolizer. The zero value reads /proc/kallsyms and
// /sys with the default throttling.
type Options struct {
	// Kallsyms is the kallsyms file, kallsyms.DefaultPath when empty.
	Kallsyms string
	// Sysfs is the sysfs mount point, kallsyms.DefaultSysfs when empty.
	Sysfs string
	// NoSysfs skips module metadata from sysfs.
	NoSysfs bool
	// Data keeps data symbols too (see kallsyms.Options.Data).
	Data bool
	// Workers is kallsyms.Options.Workers for the Symbolizer's loads: 2 or more
	// also reads sysfs beside kallsyms. The Symbolizer's own goroutines
	// (reloads, ksymbol events) run whatever it says.
	Workers int
	// Coalesce is how long a requested reload waits for more requests to
	// join it; 100ms when 0, none when negative.
	Coalesce time.Duration
	// MinInterval is the least time between the starts of two throttled
	// reloads; 1s when 0, none when negative.
	MinInterval time.Duration
	// OnReload, if set, is called after every reload attempt, from the
	// goroutine that ran it. It must not call Reload.
	OnReload func(ReloadEvent)

	// NoKsymEvents turns off following ksymbol events. By default a
	// Symbolizer of the running kernel (Kallsyms empty or kallsyms.DefaultPath)
	// follows them: BPF programs, trampolines and dispatchers that the
	// kernel registers or unregisters patch the BPF pseudo-module's table
	// at once, without a reload (see Symbolizer.KsymEventsErr).
	NoKsymEvents bool
	// KsymEvents, if set, is where the Symbolizer reads ksymbol events
	// instead of perf events: a fake in tests, or events of a kallsyms
	// file that is not the running kernel's. The Symbolizer closes it.
	KsymEvents KsymReader
	// OnKsym, if set, is called for every ksymbol event read, after the
	// batch that holds it has been applied, from the goroutine that
	// follows them. It must not call Reload.
	OnKsym func(KsymEvent)
	// MaxSize bounds the kallsyms text of every load, the first and each
	// reload (kallsyms.Options.MaxSize): a reload past it fails, is
	// reported to OnReload, and keeps the snapshot it would have replaced.
	// Zero means btf.DefaultMaxSize.
	MaxSize int64
}

// ReloadEvent reports one reload attempt.
type ReloadEvent struct {
	// Reasons lists the requests the reload served (at most 16).
	Reasons []string
	// Snapshot is the current snapshot after the attempt: the new one, or
	// the old one when Err is set.
	Snapshot *kallsyms.Snapshot
	// Err is why the reload failed; the old snapshot stays in use.
	Err error
	// Duration is how long the attempt took.
	Duration time.Duration
	// Reused counts module tables shared with the previous snapshot.
	Reused int
}

// Symbolizer keeps the current kallsyms.Snapshot of the kernel's symbols and
// replaces it on reload. Readers call Snapshot (or Lookup), which is one
// atomic load: they never block, and never see a half-built snapshot.
// Reloads build the new snapshot beside the old one, reusing the tables of
// unchanged modules, and swap it in atomically; a failed reload keeps the
// old snapshot.
//
// A Symbolizer of the running kernel also follows the kernel's ksymbol
// events (see Options.NoKsymEvents): a BPF program's symbols are added to
// the BPF pseudo-module when it loads and removed when it unloads, by
// patching that one table into a new snapshot, without rereading
// /proc/kallsyms. When the kernel reports lost events, one throttled
// reload resynchronizes.
//
// A Symbolizer is safe for concurrent use. Close stops its background
// goroutines; Snapshot and Lookup keep working on the last snapshot after
// Close, while Reload returns ErrClosed.
type Symbolizer struct {
	opts Options
	// openKsyms, if set, replaces the opening of perf events for a
	// Symbolizer of the running kernel's kallsyms or, in tests, of any
	// file: a seam for failures (see newSymbolizer).
	openKsyms func() (KsymReader, error)
	cur       atomic.Pointer[kallsyms.Snapshot]
	mu        sync.Mutex // serializes reloads; readers never take it
	closed    bool       // guarded by mu
	kick      chan struct{}
	done      chan struct{}
	wg        sync.WaitGroup
	once      sync.Once

	reqMu   sync.Mutex
	reasons []string

	ctx     context.Context // done at Close
	cancel  context.CancelFunc
	ksym    KsymReader    // nil when not following ksymbol events
	now     func() uint64 // the clock of the events' times
	live    liveSyms      // the BPF symbols; guarded by mu
	patches atomic.Int64  // snapshots published by applyKsyms
	ksymMu  sync.Mutex
	ksymErr error // guarded by ksymMu
}

// NewSymbolizer loads the first snapshot and starts the goroutine that runs
// throttled reloads and, when it follows ksymbol events, the goroutine
// that reads them (it opens their perf events before the load, so that
// none is missed). It returns the load's error, and no Symbolizer, when
// that first load fails. Perf events that cannot be opened are not an
// error: KsymEventsErr says why.
func NewSymbolizer(opts Options) (*Symbolizer, error) {
	return newSymbolizer(opts, nil)
}

// newSymbolizer is NewSymbolizer with openKsyms (nil: perf events) opening
// the ksymbol events; tests pass a seam.
func newSymbolizer(opts Options, openKsyms func() (KsymReader, error)) (*Symbolizer, error) {
	if opts.Coalesce == 0 {
		opts.Coalesce = 100 * time.Millisecond
	}
	if opts.MinInterval == 0 {
		opts.MinInterval = time.Second
	}
	s := &Symbolizer{opts: opts, openKsyms: openKsyms, kick: make(chan struct{}, 1), done: make(chan struct{}), now: func() uint64 { return 0 }}
	s.startKsyms()
	at := s.now()
	snap, err := s.load(nil)
	if err != nil {
		if s.ksym != nil {
			s.ksym.Close()
		}
		return nil, err
	}
	s.cur.Store(snap)
	s.live.reset(snap, resyncTime(at))
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.loop()
	if s.ksym != nil {
		s.wg.Add(1)
		go s.follow()
	}
	return s, nil
}

// resyncTime is the time from which events are applied over a snapshot
// read at time at (see resyncSlack).
func resyncTime(at uint64) uint64 {
	if at < resyncSlack {
		return 0
	}
	return at - resyncSlack
}

// Snapshot returns the current snapshot. It never blocks and never returns
// nil.
func (s *Symbolizer) Snapshot() *kallsyms.Snapshot { return s.cur.Load() }

// Lookup is s.Snapshot().Lookup(addr).
func (s *Symbolizer) Lookup(addr uint64) (kallsyms.Symbol, error) { return s.cur.Load().Lookup(addr) }

// load reads sysfs (beside kallsyms when Workers allows it) and kallsyms
// into a new snapshot.
func (s *Symbolizer) load(prev *kallsyms.Snapshot) (*kallsyms.Snapshot, error) {
	type result struct {
		infos []kallsyms.ModuleInfo
		err   error
	}
	ch := make(chan result, 1)
	readSysfs := func() {
		infos, err := kallsyms.ReadModules(s.opts.Sysfs)
		ch <- result{infos, err}
	}
	switch {
	case s.opts.NoSysfs:
		ch <- result{}
	case s.opts.Workers >= 2:
		go readSysfs()
	default:
		readSysfs()
	}
	ctx := s.ctx
	if ctx == nil { // the first load, before ctx exists: nothing can close s yet
		ctx = context.Background()
	}
	snap, err := kallsyms.ReadFileContext(ctx, s.opts.Kallsyms, kallsyms.Options{Data: s.opts.Data, Reuse: prev, Workers: s.opts.Workers, MaxSize: s.opts.MaxSize})
	r := <-ch
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.infos) > 0 {
		snap = snap.WithModules(r.infos)
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
	at := s.now()
	old := s.cur.Load()
	snap, err := s.load(old)
	ev := ReloadEvent{Reasons: reasons, Snapshot: old, Duration: time.Since(start)}
	if err != nil {
		ev.Err = fmt.Errorf("live: reload: %w", err)
	} else {
		s.live.reset(snap, resyncTime(at))
		s.cur.Store(snap)
		ev.Snapshot, ev.Reused = snap, snap.Shares(old)
	}
	if s.opts.OnReload != nil {
		s.opts.OnReload(ev)
	}
	return ev.Err
}

// RequestReload asks for a throttled reload and returns at once: requests
// that arrive within Options.Coalesce of each other share one reload, and
// reloads start at least Options.MinInterval apart. Errors are reported to
// Options.OnReload. It does nothing after Close.
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
		wait := s.opts.Coalesce
		if next := time.Until(last.Add(s.opts.MinInterval)); next > wait {
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

// Close stops throttled reloads, the following of ksymbol events (closing
// their reader) and any Watch, and waits for a reload in progress to
// finish; a reload whose read waits (the kallsyms path is a FIFO that
// nobody writes) is interrupted and fails. It is safe to call more than once; it always returns nil.
func (s *Symbolizer) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.cancel()
		if s.ksym != nil {
			s.ksym.Close()
		}
	})
	s.wg.Wait()
	s.mu.Lock() // waits for a Reload running on another goroutine
	s.closed = true
	s.mu.Unlock()
	return nil
}
