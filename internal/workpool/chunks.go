package workpool

import (
	"sync"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/internal/faults"
)

// Index is the type of the elements' numbers that Chunks splits: an int,
// or the uint32 of BTF type ids.
type Index interface{ ~int | ~uint32 }

// Chunks calls fn(w, lo, hi) over [0, n) in chunks [lo, hi) of chunk
// elements (the last one shorter), on up to workers goroutines, the
// calling one among them, and returns when every call has returned. w is
// the number of the goroutine making the call, in [0, workers): it can
// index per-worker scratch. Chunks are handed out in increasing order, so
// each goroutine goes up through [0, n).
//
// workers of 0 or less means runtime.GOMAXPROCS(0); with 1, or a single
// chunk, every chunk runs on the calling goroutine. Unlike ForEach, the
// work cannot fail and is not cancelled: Chunks is for CPU work over
// arrays, whose callers check their context between calls.
func Chunks[I Index](workers int, n, chunk I, fn func(w int, lo, hi I)) {
	if n <= 0 {
		return
	}
	chunk = max(chunk, 1)
	var next atomic.Int64
	work := func(w int) {
		for {
			lo := next.Add(int64(chunk)) - int64(chunk)
			if lo >= int64(n) {
				return
			}
			fn(w, I(lo), I(min(lo+int64(chunk), int64(n))))
		}
	}
	workers = Workers(workers, int((int64(n)+int64(chunk)-1)/int64(chunk)))
	var wg sync.WaitGroup
	// A fault (a mapped input truncated under the reader) in a helper
	// goroutine is raised here, where the caller's recover can see it.
	carriers := make([]faults.Carrier, workers)
	carrier := faults.New()
	for w := 1; w < workers; w++ {
		carriers[w] = carrier
		wg.Go(func() { carriers[w].Run(func() { work(w) }) })
	}
	work(0)
	wg.Wait()
	for w := range carriers {
		carriers[w].Raise()
	}
}
