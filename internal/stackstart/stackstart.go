// Package stackstart grows the main goroutine's stack once, early in
// package initialization, so that it does not grow while deep.
//
// A goroutine starts with a 2 KB stack. Each time it runs out, the runtime
// copies it to one twice the size and, to adjust its pointers, reads the
// stack maps and pc tables of every frame on it. Those tables lie in the
// binary's .gopclntab in the order of the code, so a stack of frames from
// several packages reads several 64 KB windows of it, which stay resident
// (Linux maps the 64 KB around a page fault in the file). kmeta's main
// goroutine grew twice during the standard library's and its dependencies'
// initialization, ten frames deep (internal/godebug's, klauspost/compress's
// snapref's); grown here, three frames deep, it reads the tables of
// runtime.main and of this package only, and kmeta starts 0.4 MB smaller
// (cmd/kmeta/BENCH.md, "Start-up: init functions and stack growth").
//
// Go initializes packages in the order of their import paths among those
// whose imports are initialized; this package imports nothing, so it runs
// before internal/godebug and the other standard packages whose
// initialization grew the stack (cmd/kmeta checks the order). Another order
// would only lose the saving. Package main imports it for its effect.
package stackstart

// size is what the stack is grown to hold: the runtime rounds it up to a
// power of two, 16 KB, twice what start-up grew it to.
const size = 12 << 10

// padUsed is never set: grow's frame holds the pad, which forces the
// growth, but never writes it, so its pages are not touched.
var padUsed bool

func init() { grow() }

// grow has a frame of size bytes, so that calling it grows the stack.
//
//go:noinline
func grow() {
	if padUsed {
		var pad [size]byte
		keep(pad[:])
	}
}

// keep uses b without letting it escape to the heap.
//
//go:noinline
func keep(b []byte) { _ = b }
