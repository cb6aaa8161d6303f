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

// ctxFile is ctxWriter on the temporary file of an atomic write, which
// can seek and truncate as builder.Rewriter asks: a copy then reads its
// input once (builder.WriteCopy). Standard output is never one: it may be
// a pipe, or a file open to append.
type ctxFile struct {
	ctxWriter
	f *os.File
}

func (c ctxFile) Seek(off int64, whence int) (int64, error) { return c.f.Seek(off, whence) }
func (c ctxFile) Truncate(size int64) error                 { return c.f.Truncate(size) }

// fileWriter returns what fill writes to for atomicfile.Write's w.
func (c *cli) fileWriter(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok {
		return ctxFile{ctxWriter{ctx: c.ctx, w: f}, f}
	}
	return ctxWriter{ctx: c.ctx, w: w}
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
	return c.writeOutputFile(path, data, newInputFiles(inputs...))
}

// writeOutputWith is writeOutput for an output that fill writes as it
// makes it, in pieces: to standard output for "-", else atomically to the
// file, which exists only if fill succeeds.
func (c *cli) writeOutputWith(path string, fill func(w io.Writer) error, inputs ...string) error {
	if path == "-" {
		return fill(c.out())
	}
	if err := newInputFiles(inputs...).check(path); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if err := fill(c.fileWriter(w)); err != nil {
			return err
		}
		return context.Cause(c.ctx)
	})
}

// writeOutputFile is writeOutput to a file, with the inputs as
// checkOutputFiles looked at them: a command of thousands of inputs
// (btf dedup) does not stat them all again.
func (c *cli) writeOutputFile(path string, data []byte, inputs *inputFiles) error {
	return c.writeOutputFileWith(path, func(w io.Writer) error {
		const chunk = 1 << 20
		for len(data) > 0 {
			n := min(len(data), chunk)
			if _, err := w.Write(data[:n]); err != nil {
				return err
			}
			data = data[n:]
		}
		return nil
	}, inputs)
}

// writeOutputFileWith is writeOutputFile for an output that fill writes
// as it makes it, in pieces.
func (c *cli) writeOutputFileWith(path string, fill func(w io.Writer) error, inputs *inputFiles) error {
	if err := inputs.check(path); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if err := fill(c.fileWriter(w)); err != nil {
			return err
		}
		return context.Cause(c.ctx)
	})
}

// checkOutput checks the output path of -o before a command's work: it
// must be given; "-" is standard output; a file must be one that can be
// written (atomicfile.Check: not a directory, in a directory that exists
// and takes files; a device or FIFO is written straight into); and it
// must not name one of the inputs: the same file (os.SameFile) if both
// exist, else the same cleaned absolute path. Writing over an input
// ("copy -B base.btf mod.btf -o base.btf") would destroy it before, or
// while, it is read.
func checkOutput(out string, inputs ...string) error {
	_, err := checkOutputFiles(out, inputs...)
	return err
}

// checkOutputFiles is checkOutput; it returns the inputs as it looked at
// them, for writeOutputFile, or nil for standard output.
func checkOutputFiles(out string, inputs ...string) (*inputFiles, error) {
	switch out {
	case "":
		return nil, usagef("missing -o OUT (\"-\" for standard output)")
	case "-":
		return nil, nil
	}
	ins := newInputFiles(inputs...)
	if err := checkOutputIn(out, ins); err != nil {
		return nil, err
	}
	return ins, nil
}

// checkOutputIn is checkOutput for a file out, against the inputs ins.
func checkOutputIn(out string, ins *inputFiles) error {
	if err := ins.check(out); err != nil {
		return err
	}
	if err := atomicfile.Check(out); err != nil {
		return fmt.Errorf("-o %w", err)
	}
	return nil
}

// checkOutputDir makes the output directory of -d, with its parents, as
// mkdir -p does, and checks it before a command's work, as checkOutput
// checks a file. A file of that name stays an error.
func checkOutputDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("-d %s: not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("-d %w", err)
	}
	if err := atomicfile.CheckDir(dir); err != nil {
		return fmt.Errorf("-d %w", err)
	}
	return nil
}

// inputFiles are a command's input files, for refusing an output that
// would overwrite one of them, as checkOutput does. Each input is looked
// at once however many outputs are checked, so that a batch of thousands
// of kernels does not check each output against every input in quadratic
// time before any work.
type inputFiles struct {
	byPath map[string]string     // cleaned absolute path: the input as given
	bySize map[int64][]inputFile // the inputs that exist, by size
}

type inputFile struct {
	name string
	fi   os.FileInfo
}

// newInputFiles looks at each input once: its absolute path, and its
// FileInfo if it exists. "" and "-" (standard input) are left out.
func newInputFiles(inputs ...string) *inputFiles {
	s := newInputPaths(inputs...)
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if fi, err := os.Stat(in); err == nil {
			s.add(in, fi)
		}
	}
	return s
}

// newInputPaths is newInputFiles without the FileInfos, for a command
// that opens its inputs anyway (checkBTFInputFiles) and adds them then.
// The working directory is read once: filepath.Abs reads it for each
// relative path, and os.Getwd stats "." and $PWD each time.
func newInputPaths(inputs ...string) *inputFiles {
	s := &inputFiles{byPath: map[string]string{}, bySize: map[int64][]inputFile{}}
	var wd string
	var wdErr error
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if filepath.IsAbs(in) {
			s.byPath[filepath.Clean(in)] = in
			continue
		}
		if wd == "" && wdErr == nil {
			wd, wdErr = os.Getwd()
		}
		if wdErr == nil {
			s.byPath[filepath.Join(wd, in)] = in
		}
	}
	return s
}

// add records the FileInfo of input name.
func (s *inputFiles) add(name string, fi os.FileInfo) {
	s.bySize[fi.Size()] = append(s.bySize[fi.Size()], inputFile{name, fi})
}

// check refuses out if it names one of the inputs. One file has one size,
// so only the inputs of the output's size can be it.
func (s *inputFiles) check(out string) error {
	if a, err := filepath.Abs(out); err == nil {
		if in, ok := s.byPath[a]; ok {
			return fmt.Errorf("output %s is the input %s: refusing to overwrite it", out, in)
		}
	}
	if ofi, err := os.Stat(out); err == nil {
		for _, in := range s.bySize[ofi.Size()] {
			if os.SameFile(in.fi, ofi) {
				return fmt.Errorf("output %s is the input %s: refusing to overwrite it", out, in.name)
			}
		}
	}
	return nil
}
