package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// The CLI's batch commands share one worker pool and one error policy:
// work is handed out in input order; after the first failure, or once the
// context is done, no new item is started; and the error reported is that
// of the first failed item in input order, so that a run names the same
// input whatever the scheduling.

// workers returns the number of goroutines for jobs (0: one per CPU).
func workers(jobs, n int) int {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	return max(1, min(jobs, n))
}

// forEach calls fn(i) for every i in [0, n) on up to jobs goroutines
// (jobs <= 0: one per CPU). It returns the error of the lowest i that
// failed, or the context's error if the context ended the run early.
func forEach(ctx context.Context, n, jobs int, fn func(i int) error) error {
	var (
		next   atomic.Int64
		failed atomic.Bool
		errs   = make([]error, n)
		wg     sync.WaitGroup
	)
	for range workers(jobs, n) {
		wg.Go(func() {
			for !failed.Load() && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if errs[i] = fn(i); errs[i] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
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

// inOrder calls produce(i) for every i in [0, n) on up to jobs goroutines,
// and consume(i, v) with each result on the calling goroutine, in order of
// i. At most ahead results wait to be consumed, which bounds the memory
// that produced values hold. It stops at the first error of either, in
// order of i, or when the context is done, and then passes every value
// produced but not consumed to discard.
//
// The calling goroutine, when the next result in order is not ready,
// produces the next item not started itself rather than wait: it takes
// its part of the producers' work instead of being woken for each
// result, and jobs-1 producers with it keep jobs cores busy.
func inOrder[T any](ctx context.Context, n, jobs, ahead int, produce func(i int) (T, error), consume func(i int, v T) error, discard func(T)) error {
	type result struct {
		v   T
		err error
	}
	var (
		slots = make([]chan result, n)
		room  = make(chan struct{}, max(ahead, 1))
		next  atomic.Int64
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	for range workers(jobs, n) - 1 {
		wg.Go(func() {
			for {
				// Room is taken before the index, so that the lowest
				// index not yet consumed always has its place.
				select {
				case room <- struct{}{}:
				case <-stop:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				v, err := produce(i)
				slots[i] <- result{v, err}
			}
		})
	}
	// help produces the next item not started, if there is one and room
	// for it, and reports whether it did.
	help := func() bool {
		select {
		case room <- struct{}{}:
		default:
			return false
		}
		i := int(next.Add(1) - 1)
		if i >= n {
			<-room
			return false
		}
		v, err := produce(i)
		slots[i] <- result{v, err}
		return true
	}
	finish := func(from int) {
		close(stop)
		wg.Wait()
		for _, s := range slots[from:] {
			select {
			case r := <-s:
				if r.err == nil && discard != nil {
					discard(r.v)
				}
			default:
			}
		}
	}
	for i := range n {
		var r result
	wait:
		for {
			if ctx.Err() != nil {
				finish(i)
				return ctx.Err()
			}
			select {
			case r = <-slots[i]:
				break wait
			default:
			}
			if help() {
				continue
			}
			select {
			case r = <-slots[i]:
				break wait
			case <-ctx.Done():
				finish(i)
				return ctx.Err()
			}
		}
		<-room
		if r.err == nil {
			r.err = consume(i, r.v)
		}
		if r.err != nil {
			finish(i + 1)
			return r.err
		}
	}
	finish(n)
	return nil
}
