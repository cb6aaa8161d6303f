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

import "runtime/debug"

// Carrier is made by the starting goroutine (New) and used by one helper
// goroutine (Run); the starter calls Raise once the helper is done.
type Carrier struct {
	on    bool
	fault any
}

// New returns a Carrier with the calling goroutine's panic-on-fault
// setting.
func New() Carrier {
	old := debug.SetPanicOnFault(false)
	debug.SetPanicOnFault(old)
	return Carrier{on: old}
}

// Run calls fn on the helper goroutine with the starter's setting. A
// fault in fn is kept for Raise and ends fn, and Run reports false;
// other panics go on.
func (c *Carrier) Run(fn func()) (ok bool) {
	if !c.on {
		fn()
		return true
	}
	old := debug.SetPanicOnFault(true) // the starter's goroutine too may run fn
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, isFault := r.(interface{ Addr() uintptr }); !isFault {
				panic(r)
			}
			c.fault, ok = r, false
		}
	}()
	fn()
	return true
}

// Faulted reports whether the helper met a fault that Raise will raise.
func (c *Carrier) Faulted() bool { return c.fault != nil }

// Raise panics on the starting goroutine with the fault the helper
// met, if any: with panic-on-fault on there, as if the starter had
// faulted.
func (c *Carrier) Raise() {
	if c.fault != nil {
		panic(c.fault)
	}
}
