package workpool

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/internal/faults"
)

// ForEach calls fn(i) for every i in [0, n) on up to opts.Workers
// goroutines, handing the jobs out in order of i, and returns when every
// call it made has returned. After a call fails, or once ctx is done, it
// starts no new one. It returns the error of the lowest i that failed, or
// ctx's error if the context ended the run before every job had started,
// or nil.
func ForEach(ctx context.Context, n int, opts Options, fn func(i int) error) error {
	if n <= 0 {
		return nil
	}
	var (
		next   atomic.Int64
		failed atomic.Bool
		errs   = make([]error, n)
		wg     sync.WaitGroup
		done   = opts.progress()
	)
	jobs := func() {
		for !failed.Load() && ctx.Err() == nil {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			if errs[i] = fn(i); errs[i] != nil {
				failed.Store(true)
			} else {
				done()
			}
		}
	}
	// A fault (a mapped input truncated under the reader) in a worker
	// is raised here, where the caller's recover can see it.
	carriers := make([]faults.Carrier, Workers(opts.Workers, n))
	carrier := faults.New()
	for w := range carriers {
		carriers[w] = carrier
		wg.Go(func() { carriers[w].Run(jobs) })
	}
	wg.Wait()
	for w := range carriers {
		carriers[w].Raise()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if int(next.Load()) < n {
		return ctx.Err()
	}
	return nil
}

// progress returns the function that counts a job done and reports it to
// o.Progress, one call at a time.
func (o Options) progress() func() {
	if o.Progress == nil {
		return func() {}
	}
	var (
		mu    sync.Mutex
		count int
	)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		count++
		o.Progress(count)
	}
}
