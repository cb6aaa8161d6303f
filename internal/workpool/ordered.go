package workpool

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/internal/faults"
)

// Ordered calls produce(i) for every i in [0, n) on up to opts.Workers
// goroutines, the calling one among them, and consume(i, v) with each
// value produced on the calling goroutine, in order of i. At most
// opts.Ahead values wait to be consumed, which bounds the memory they
// hold. A value whose produce failed is not consumed.
//
// It stops at the first error of produce or consume, in order of i, or
// once ctx is done, and then waits for every produce it started and
// passes each value produced but not consumed to discard (if not nil), on
// the calling goroutine. It returns that first error, or ctx's error, or
// nil. opts.Progress is called on the calling goroutine after each
// consume.
//
// When the next value in order is not ready, the calling goroutine
// produces the next job not yet started itself rather than wait: it does
// its share of the work instead of being woken for each value, and with
// Workers-1 goroutines beside it keeps Workers cores busy.
func Ordered[T any](ctx context.Context, n int, opts Options, produce func(i int) (T, error), consume func(i int, v T) error, discard func(T)) error {
	if n <= 0 {
		return nil
	}
	workers := Workers(opts.Workers, n)
	ahead := opts.Ahead
	if ahead <= 0 {
		ahead = 2 * workers
	}
	o := &ordered[T]{
		slots:   make([]chan result[T], n),
		room:    make(chan struct{}, ahead),
		stop:    make(chan struct{}),
		produce: produce,
		carrier: faults.New(),
	}
	for i := range o.slots {
		o.slots[i] = make(chan result[T], 1)
	}
	for range workers - 1 {
		o.wg.Go(o.work)
	}
	for i := range n {
		r, err := o.wait(ctx, i)
		if err != nil {
			o.finish(i, discard)
			return err
		}
		<-o.room
		if o.carrier.Faulted() {
			// A mapped input truncated under a produce: raised here,
			// where the caller's recover can see it, before anything
			// that fault left half done is consumed.
			if r.err == nil && discard != nil {
				discard(r.v)
			}
			o.finish(i+1, discard)
			o.carrier.Raise()
		}
		if err = r.err; err == nil {
			err = consume(i, r.v)
		}
		if err != nil {
			o.finish(i+1, discard)
			return err
		}
		if opts.Progress != nil {
			opts.Progress(i + 1)
		}
	}
	o.finish(n, discard)
	return nil
}

// result is what produce returned for one job.
type result[T any] struct {
	v   T
	err error
}

// errFaulted is the result of a produce that a fault ended.
var errFaulted = errors.New("workpool: memory fault")

// ordered is the state of one call of Ordered.
type ordered[T any] struct {
	// slots[i] receives job i's result, once.
	slots []chan result[T]
	// room holds a token for each job started and not yet consumed.
	room chan struct{}
	// next is the next job to start.
	next atomic.Int64
	// stop is closed when the call ends: the workers start no more jobs.
	stop    chan struct{}
	wg      sync.WaitGroup
	produce func(i int) (T, error)
	// carrier has the caller's panic-on-fault setting; each job runs
	// under a copy of it.
	carrier faults.Carrier
}

// work is a worker's loop: it starts jobs while there are some and room
// for their values. Room is taken before the job's number, so that the
// lowest job not yet consumed always has its place.
func (o *ordered[T]) work() {
	for {
		select {
		case o.room <- struct{}{}:
		case <-o.stop:
			return
		}
		if !o.run() {
			return
		}
	}
}

// run produces the next job not yet started, having taken room for it,
// and reports whether there was one (if not, it gives the room back).
func (o *ordered[T]) run() bool {
	i := int(o.next.Add(1) - 1)
	if i >= len(o.slots) {
		<-o.room
		return false
	}
	var r result[T]
	if !o.carrier.Run(func() { r.v, r.err = o.produce(i) }) {
		r = result[T]{err: errFaulted} // Ordered raises the fault itself
	}
	o.slots[i] <- r
	return true
}

// wait returns job i's result, producing other jobs meanwhile if there is
// room for them, or ctx's error if it is done first (job i's result, if
// any, then stays in its slot for finish).
func (o *ordered[T]) wait(ctx context.Context, i int) (result[T], error) {
	for {
		if err := ctx.Err(); err != nil {
			return result[T]{}, err
		}
		select {
		case r := <-o.slots[i]:
			return r, nil
		default:
		}
		if o.help() {
			continue
		}
		select {
		case r := <-o.slots[i]:
			return r, nil
		case <-ctx.Done():
		}
	}
}

// help produces the next job not yet started on the calling goroutine if
// there is one and room for it, and reports whether it did.
func (o *ordered[T]) help() bool {
	select {
	case o.room <- struct{}{}:
	default:
		return false
	}
	return o.run()
}

// finish ends the call: it stops the workers, waits for every job they
// started, and passes the values produced for jobs from on, not consumed,
// to discard.
func (o *ordered[T]) finish(from int, discard func(T)) {
	close(o.stop)
	o.wg.Wait()
	for _, s := range o.slots[from:] {
		select {
		case r := <-s:
			if r.err == nil && discard != nil {
				discard(r.v)
			}
		default:
		}
	}
}
