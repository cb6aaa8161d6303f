// Package workpool is kmeta's one worker pool: it runs independent jobs,
// numbered 0 to n-1, on a bounded number of goroutines.
//
// Three forms cover what the library and the CLI need:
//
//   - [ForEach] runs fn(i) for every job and reports the first error in
//     input order, for batches whose jobs write their own results (one
//     output file per input).
//   - [Ordered] produces values on the workers and consumes them on the
//     calling goroutine in input order, with a bounded number of values
//     waiting, for a stream whose order matters (inputs appended one
//     after the other) and whose values are large.
//   - [Chunks] splits [0, n) into chunks for CPU work that cannot fail and
//     is not cancelled (computing signatures over an array of types).
//
// # Errors and cancellation
//
// ForEach and Ordered start no new job after the first failure or once
// the context is done, and return only when every job they started has
// returned: no goroutine outlives a call. The error returned is that of
// the failed job with the lowest number, so that a run names the same
// input whatever the scheduling; when no job failed and the context
// ended the run, it is the context's error. A job that is running when
// the context ends is not interrupted: jobs that take long should watch
// the context themselves.
//
// # Concurrency
//
// The functions are safe for concurrent use. The callbacks run on
// several goroutines at once (consume and Options.Progress excepted, as
// their documentation says), and must be safe for that.
package workpool

import "runtime"

// Options tune ForEach and Ordered. The zero value uses one goroutine per
// CPU, keeps twice as many values waiting as there are workers, and
// reports no progress.
type Options struct {
	// Workers bounds how many jobs run at once; 0 or less means
	// runtime.GOMAXPROCS(0). A call never starts more goroutines than it
	// has jobs.
	Workers int
	// Ahead bounds, in Ordered, how many values are produced and not yet
	// consumed, which bounds the memory they hold; 0 or less means twice
	// the number of workers. ForEach ignores it.
	Ahead int
	// Progress, if not nil, is called with the number of jobs done so far
	// each time one more is done: in ForEach when a job returns nil, in
	// Ordered when a value has been consumed. Calls never overlap, and
	// their numbers go up by one.
	Progress func(done int)
}

// Workers returns how many goroutines serve n jobs when workers are asked
// for (0 or less: runtime.GOMAXPROCS(0)): at least 1 and at most n.
func Workers(workers, n int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(workers, n))
}
