package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kmeta-dev/kmeta/internal/atomicfile"
)

// ctxWriter fails every write once ctx is done, so that a command writing
// a long output (a raw or C dump of vmlinux) stops at its next buffer
// flush after SIGINT or SIGTERM.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.w.Write(p)
}

// out returns standard output for a command's result: writes stop when the
// command is cancelled.
func (c *cli) out() io.Writer { return ctxWriter{ctx: c.ctx, w: c.stdout} }

// writeOutput writes data to path ("-" for standard output) atomically:
// a cancelled command or a failed write leaves no file and no partial
// one, and an existing file is replaced only by a complete one. path must
// not be one of inputs (see checkOutput).
func (c *cli) writeOutput(path string, data []byte, inputs ...string) error {
	if path == "-" {
		_, err := c.out().Write(data)
		return err
	}
	if err := checkOutput(path, inputs...); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		const chunk = 1 << 20
		for len(data) > 0 {
			n := min(len(data), chunk)
			if _, err := (ctxWriter{ctx: c.ctx, w: w}).Write(data[:n]); err != nil {
				return err
			}
			data = data[n:]
		}
		if c.ctx.Err() != nil {
			return context.Cause(c.ctx)
		}
		return nil
	})
}

// checkOutput refuses an output path that names one of the inputs: the
// same file (os.SameFile) if both exist, else the same cleaned absolute
// path. Writing over an input ("copy -B base.btf mod.btf -o base.btf")
// would destroy it before, or while, it is read.
func checkOutput(out string, inputs ...string) error {
	ofi, oerr := os.Stat(out)
	oabs, _ := filepath.Abs(out)
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if ifi, err := os.Stat(in); err == nil && oerr == nil {
			if os.SameFile(ifi, ofi) {
				return fmt.Errorf("output %s is the input %s: refusing to overwrite it", out, in)
			}
			continue
		}
		if iabs, _ := filepath.Abs(in); iabs == oabs {
			return fmt.Errorf("output %s is the input %s: refusing to overwrite it", out, in)
		}
	}
	return nil
}
