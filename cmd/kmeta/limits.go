package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/input"
)

// envMaxInput names the environment variable that sets the input limit
// when --max-input is not given.
const envMaxInput = "KMETA_MAX_INPUT"

// parseMaxInput sets c.maxInput from the --max-input flag, or else from
// $KMETA_MAX_INPUT.
func (c *cli) parseMaxInput(flag string) error {
	v, from := flag, "--max-input"
	if v == "" {
		v, from = os.Getenv(envMaxInput), envMaxInput
	}
	if v == "" {
		return nil
	}
	n, err := input.ParseSize(v)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	c.maxInput = n
	return nil
}

// withHint adds to an error about input over the size limit how to raise
// the limit, and to one about memory running out below the limit (under a
// memory rlimit) how to lower it; once, however often it is called on the
// way out.
func withHint(err error) error {
	var h *hintError
	var mem *input.MemoryError
	switch {
	case err == nil || errors.As(err, &h):
		return err
	case errors.As(err, &mem):
		return &hintError{fmt.Errorf("%w (lower the input limit with --max-input SIZE or %s, or allow more memory)", err, envMaxInput)}
	case errors.Is(err, btf.ErrTooLarge):
		return &hintError{fmt.Errorf("%w (raise the limit with --max-input SIZE or %s)", err, envMaxInput)}
	}
	return err
}

// hintError is an error withHint has added its hint to.
type hintError struct{ err error }

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// readOptions are the options every command reads BTF with: a big type
// section is checked on every core.
func (c *cli) readOptions(base *btf.Spec) btf.Options {
	o := btf.Options{Base: base, MaxSize: c.maxInput, Workers: runtime.GOMAXPROCS(0)}
	if c.evictOpen {
		// One walker: the second's thread, stack and caches cost more
		// memory than the releases save, and each release flushes the
		// TLB of every CPU the walkers run on (btf/builder/BENCH.md).
		o = btfmem.EvictWhileOpening(o)
		o.Workers = 1
	}
	return o
}

// stdinReader returns standard input, read so that a command whose ctx is
// done does not wait for a read that blocks (a terminal, a pipe nobody
// writes).
func (c *cli) stdinReader(ctx context.Context) io.Reader {
	return &ctxReader{ctx: ctx, r: c.stdin, res: make(chan readResult, 1)}
}

// ctxReader reads r on a goroutine, so that Read returns the context's
// cause as soon as ctx is done even while r's read blocks; that goroutine
// then ends with the process.
type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	buf     []byte
	res     chan readResult
	pending bool
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	if !c.pending {
		n := min(len(p), 1<<20)
		if len(c.buf) < n {
			c.buf = make([]byte, n)
		}
		buf := c.buf[:n]
		go func() {
			m, err := c.r.Read(buf)
			c.res <- readResult{m, err}
		}()
		c.pending = true
	}
	select {
	case r := <-c.res:
		c.pending = false
		return copy(p, c.buf[:r.n]), r.err
	case <-c.ctx.Done():
		return 0, context.Cause(c.ctx)
	}
}
