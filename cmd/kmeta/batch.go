package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/internal/atomicfile"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// The batch modes (btf dedup --each, btf encode --each, btf min -d) write
// one output for each of many inputs, and share one rule for the inputs
// that fail (README, "Conventions"):
//
//   - every input that succeeds gets its output, each written atomically
//     (atomicfile.Batch: one sync, then the renames, at the end);
//   - each input that fails is one line on stderr naming it, in input
//     order, once the batch is done, and the command then ends with exit
//     status 2 and a last line counting them;
//   - with --all-or-nothing the first failure stops the batch and no
//     output is written (OUTDIR is left as it was), for a directory that
//     a build reads whole;
//   - a batch that a signal interrupts writes nothing (exit 128+signal),
//     as every command does.
//
// This is what a loop running the peers once per input gives (pahole -J
// on each module in the kernel's build with make -k, bpftool gen
// min_core_btf on each kernel in BTFHub's scripts): one input's failure
// costs no other input's output.

// batchRun collects what fails in a batch, input by input.
type batchRun struct {
	noun  string  // what an input is, plural: "modules", "kernels"
	whole bool    // --all-or-nothing
	errs  []error // each input's failure, nil if it succeeded
}

// allOrNothingFlag registers --all-or-nothing into whole.
func allOrNothingFlag(cmd *cobra.Command, whole *bool) {
	cmd.Flags().BoolVar(whole, "all-or-nothing", false, "batch mode: write no output unless every input succeeds (default: write the good ones, name the others)")
}

func newBatchRun(n int, noun string, whole bool) *batchRun {
	return &batchRun{noun: noun, whole: whole, errs: make([]error, n)}
}

// run runs job for every input not already failed on the pool, and
// commits batch: the outputs of the inputs that succeeded. A job's error
// is its input's failure; with --all-or-nothing it ends the batch, and
// run aborts batch and returns it. An interrupted batch is aborted too.
func (r *batchRun) run(c *cli, pool workpool.Options, batch *atomicfile.Batch, job func(i int) error) error {
	err := workpool.ForEach(c.ctx, len(r.errs), pool, func(i int) error {
		if r.errs[i] != nil {
			return nil // failed before the batch (its input's check)
		}
		err := job(i)
		if r.whole {
			return err
		}
		r.errs[i] = err
		return nil
	})
	if err == nil {
		// A job that saw the context end failed by it: nothing is kept.
		err = c.ctx.Err()
	}
	if err != nil {
		batch.Abort()
		return err
	}
	return batch.Commit()
}

// all tells whether every input failed (a batch with nothing to do).
func (r *batchRun) all() bool {
	for _, err := range r.errs {
		if err == nil {
			return false
		}
	}
	return true
}

// fail records the failure of input i before the batch runs; with
// --all-or-nothing it is the command's error.
func (r *batchRun) fail(i int, err error) error {
	if r.whole {
		return err
	}
	r.errs[i] = err
	return nil
}

// finish prints one line for each failed input, in input order, after
// "kmeta: " and the command's name, and returns the error that ends the
// command: nil when none failed, the failure itself when the batch had
// one input, else a count of them.
func (r *batchRun) finish(c *cli, name string) error {
	var failed []error
	for _, err := range r.errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	switch {
	case len(failed) == 0:
		return nil
	case len(r.errs) == 1:
		return failed[0]
	}
	for _, err := range failed {
		fmt.Fprintf(c.stderr, "kmeta: %s: %v\n", name, err)
	}
	if len(failed) == len(r.errs) {
		return fmt.Errorf("all %d %s failed (named above)", len(failed), r.noun)
	}
	return fmt.Errorf("%d of %d %s failed (named above); the others are written", len(failed), len(r.errs), r.noun)
}
