// Package faults carries a memory fault (SIGBUS from a mapped file that
// another process truncated) from a helper goroutine to the goroutine
// that waits for it. debug.SetPanicOnFault is per goroutine: a caller that
// turned it on (cmd/kmeta's guardFaults, a library user reading mapped
// Specs) is not protected in the goroutines a library starts for it, and
// a fault there kills the process with the runtime's "unexpected fault
// address" trace. A helper goroutine that runs under a Carrier faults as
// its starter would, and the starter re-raises the fault where its own
// recover sees it.
package faults

import (
	"runtime/debug"
	"sync"
)

// Carrier is made by the starting goroutine (New) and used by helper
// goroutines (Run); the starter calls Raise once a helper is done.
// Copies of a Carrier share what they carry: once one helper has
// faulted, a panic in another is taken as a consequence (a fault that
// unwound through a sync.Once leaves what it guards unset) and carried
// too, and Raise raises the first fault.
type Carrier struct {
	on    bool
	group *group
}

// group is the state that copies of a Carrier share.
type group struct {
	mu    sync.Mutex
	first any // the first fault met
}

// New returns a Carrier with the calling goroutine's panic-on-fault
// setting.
func New() Carrier {
	old := debug.SetPanicOnFault(false)
	debug.SetPanicOnFault(old)
	return Carrier{on: old, group: new(group)}
}

// Run calls fn with the starter's setting. A fault in fn (or, after a
// fault of a copy, any panic) is kept for Raise and ends fn, and Run
// reports false; other panics go on.
func (c *Carrier) Run(fn func()) (ok bool) {
	if !c.on {
		fn()
		return true
	}
	old := debug.SetPanicOnFault(true) // the starter's goroutine too may run fn
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if !c.group.carry(r) {
				panic(r)
			}
			ok = false
		}
	}()
	fn()
	return true
}

// carry records r if it is a fault, and reports whether r is to be
// carried: a fault, or any panic once a fault was met.
func (g *group) carry(r any) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, isFault := r.(interface{ Addr() uintptr }); isFault {
		if g.first == nil {
			g.first = r
		}
		return true
	}
	return g.first != nil
}

// Faulted reports whether a helper running under this Carrier or a copy
// of it met a fault.
func (c *Carrier) Faulted() bool {
	if c.group == nil {
		return false
	}
	c.group.mu.Lock()
	defer c.group.mu.Unlock()
	return c.group.first != nil
}

// Raise panics on the starting goroutine with the first fault that a
// helper under this Carrier or a copy met, if any: with panic-on-fault
// on there, as if the starter had faulted.
func (c *Carrier) Raise() {
	if c.Faulted() {
		panic(c.group.first)
	}
}
