package main

import (
	"fmt"
	"runtime/debug"
)

// guardFaults turns a memory fault in the calling goroutine into an error
// in *err, for the function that defers the function it returns. kmeta
// maps its input files: if another process truncates one while kmeta
// reads it, the pages past the new end fault (SIGBUS), which would kill
// the process with a stack trace; this makes it the one-line error of
// any failed read. Other panics go on.
func guardFaults(err *error) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		r := recover()
		if r == nil {
			return
		}
		if f, ok := r.(interface{ Addr() uintptr }); ok {
			// The runtime's text ("invalid memory address or nil pointer
			// dereference") would read as kmeta's own bug: say where.
			*err = fmt.Errorf("an input file changed while it was read (truncated by another process?): memory fault at %#x", f.Addr())
			return
		}
		panic(r)
	}
}
