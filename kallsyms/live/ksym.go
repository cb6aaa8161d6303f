package live

import (
	"context"
	"errors"

	"github.com/kmeta-dev/kmeta/kallsyms"
)

// KsymOp says what a KsymEvent reports.
//
// Its values are KsymAdd, KsymRemove and KsymLost.
type KsymOp uint8

const (
	// KsymAdd: the kernel registered a symbol.
	KsymAdd KsymOp = iota + 1
	// KsymRemove: the kernel unregistered a symbol.
	KsymRemove
	// KsymLost: the kernel dropped events (a full ring buffer), or a ring
	// could not be read; only Lost is set.
	KsymLost
)

// String returns "add", "remove" or "lost".
func (op KsymOp) String() string {
	switch op {
	case KsymAdd:
		return "add"
	case KsymRemove:
		return "remove"
	case KsymLost:
		return "lost"
	}
	return "unknown"
}

// Values of KsymEvent.Type (PERF_RECORD_KSYMBOL_TYPE_*).
const (
	KsymTypeUnknown = 0 // not said
	KsymTypeBPF     = 1 // BPF programs, trampolines, dispatchers: the BPF pseudo-module
	KsymTypeOOL     = 2 // out-of-line code: ftrace and kprobe trampolines (__builtin__*)
)

// KsymEvent is a kernel symbol registered or unregistered at run time, as
// the kernel reports it in a PERF_RECORD_KSYMBOL: a BPF program's
// bpf_prog_<tag>_<name>, a trampoline, a dispatcher, or out-of-line code.
// These symbols send no uevent.
type KsymEvent struct {
	Op   KsymOp // KsymAdd, KsymRemove or KsymLost
	Type uint16 // KsymTypeBPF, KsymTypeOOL, ...
	Name string // as /proc/kallsyms lists it: bpf_prog_<tag>_<name>, bpf_trampoline_<id>, ...
	Addr uint64 // the symbol's address
	Len  uint32 // the symbol's length in bytes
	// Time is when the kernel sent the event, in CLOCK_MONOTONIC
	// nanoseconds. An event older than the last one applied at its address
	// is ignored (the kernel reports a symbol's registration and removal
	// on the CPUs where they happen, which a reader drains in turn). 0
	// means unknown: the event is applied in its turn, never ignored.
	Time uint64
	// Lost is, for KsymLost, how many events the kernel dropped (0 when
	// unknown).
	Lost uint64
}

// KsymReader is what a Symbolizer reads ksymbol events from: by default,
// perf events of every CPU (Options.KsymEvents sets another, a fake in
// tests). Read appends the events available to dst, blocking until there
// is at least one, ctx is done or the reader is closed; it returns them in
// the order the kernel sent them (by Time, where set). Close ends a
// blocked Read.
type KsymReader interface {
	Read(ctx context.Context, dst []KsymEvent) ([]KsymEvent, error)
	Close() error
}

// ErrNoKsymEvents is wrapped by Symbolizer.KsymEventsErr when the
// Symbolizer does not follow ksymbol events: BPF symbols are then current
// only after a reload, as before events were followed.
var ErrNoKsymEvents = errors.New("live: not following BPF symbol (ksymbol) events")

// liveSyms is the BPF pseudo-module's symbols as the events left them:
// by address, with removed addresses kept a while (tombstones) with the
// time of their removal, so that an older event arriving late (from
// another CPU's ring) cannot resurrect them.
type liveSyms struct {
	m       map[uint64]liveSym
	present int
	newest  uint64 // the latest event time seen
}

type liveSym struct {
	name    string
	size    uint32 // 0 when unknown (a symbol read from kallsyms)
	time    uint64
	present bool
}

// tombstoneAge is how long (in event time) a removed address remembers
// its removal.
const tombstoneAge = 10e9

// reset makes the symbols of module BPF of snapshot s (a fresh reload's,
// or nil) the live set, as of time at.
func (l *liveSyms) reset(s *kallsyms.Snapshot, at uint64) {
	l.m, l.present = make(map[uint64]liveSym), 0
	if s == nil {
		return
	}
	for sym := range s.ModuleSymbols(kallsyms.BPF) {
		l.m[sym.Addr] = liveSym{name: sym.Name, time: at, present: true}
		l.present++
	}
}

// apply applies one add or remove event and reports whether the set
// changed. An event older than what its address last saw is ignored.
func (l *liveSyms) apply(ev *KsymEvent) bool {
	if ev.Name == "" || len(ev.Name) > kallsyms.MaxNameLen {
		return false
	}
	l.newest = max(l.newest, ev.Time)
	cur, ok := l.m[ev.Addr]
	if ok && ev.Time != 0 && ev.Time < cur.time {
		return false
	}
	if ev.Op == KsymRemove {
		l.m[ev.Addr] = liveSym{time: ev.Time}
		if ok && cur.present {
			l.present--
			return true
		}
		return false
	}
	l.m[ev.Addr] = liveSym{name: ev.Name, size: ev.Len, time: ev.Time, present: true}
	if ok && cur.present {
		return cur.name != ev.Name || cur.size != ev.Len
	}
	l.present++
	return true
}

// prune forgets tombstones older than tombstoneAge when they outnumber
// the symbols.
func (l *liveSyms) prune() {
	if len(l.m) < 2*l.present+64 {
		return
	}
	for a, s := range l.m {
		if !s.present && (s.time == 0 || s.time+tombstoneAge < l.newest) {
			delete(l.m, a)
		}
	}
}

// symbols returns the live symbols, for the BPF table
// (kallsyms.Snapshot.WithSymbols): each symbol ends where its length says
// unless the next one starts first, so that a lookup between programs is
// ErrNotText rather than the program below with a large offset.
func (l *liveSyms) symbols() []kallsyms.SizedSymbol {
	syms := make([]kallsyms.SizedSymbol, 0, l.present)
	for a, s := range l.m {
		if s.present {
			syms = append(syms, kallsyms.SizedSymbol{Name: s.name, Addr: a, Size: uint64(s.size)})
		}
	}
	return syms
}
