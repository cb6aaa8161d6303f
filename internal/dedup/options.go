package dedup

import (
	"sync"
	"sync/atomic"
)

// Options tune NewBase and New.
type Options struct {
	// Workers is how many goroutines a call may use for the work that
	// does not depend on order: a Base's signatures and string index, and
	// the signatures a deduplication files structs and typedefs under.
	// What libbpf does in order (which candidate is canonical, the output
	// order) stays on the calling goroutine, so the result is the same for
	// any number. 0 and 1 use the calling goroutine alone.
	Workers int
	// Compat is the libbpf version whose deduplication a Merger
	// reproduces where versions differ; the zero value is
	// CompatLibbpf18. NewBase ignores it: a Base serves Mergers of any
	// Compat.
	Compat Compat
}

func (o Options) workers() int { return max(o.Workers, 1) }

// parallel calls fn(w, lo, hi) over [0, n) in chunks of chunk, on up to
// workers goroutines (the calling one among them), w being the worker's
// number, and returns when all are done. Chunks are handed out in order,
// so each worker goes up through the ids, as the signature windows
// expect.
func parallel(workers int, n, chunk uint32, fn func(w int, lo, hi uint32)) {
	var next atomic.Uint64
	work := func(w int) {
		for {
			lo := next.Add(uint64(chunk)) - uint64(chunk)
			if lo >= uint64(n) {
				return
			}
			fn(w, uint32(lo), uint32(min(lo+uint64(chunk), uint64(n))))
		}
	}
	workers = max(1, min(workers, int((n+chunk-1)/chunk)))
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { work(w) })
	}
	work(0)
	wg.Wait()
}
