package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/kimage"
)

// defaultVmlinux is the running kernel's BTF, read when no file is named.
const defaultVmlinux = "/sys/kernel/btf/vmlinux"

// openedSpec is a Spec opened from the command line, with its base.
type openedSpec struct {
	spec *btf.Spec
	base *btf.Spec
}

// Close closes the Spec and then its base.
func (o *openedSpec) Close() {
	o.spec.Close()
	if o.base != nil {
		o.base.Close()
	}
}

// openSpec opens path ("-" for stdin), on top of basePath if not empty.
func (c *cli) openSpec(path, basePath string) (*openedSpec, error) {
	if stdinTwice(path, basePath) {
		return nil, usagef("FILE and -B BASE cannot both be standard input (\"-\")")
	}
	var base *btf.Spec
	if basePath != "" {
		var err error
		if base, err = c.openBase(basePath); err != nil {
			return nil, err
		}
	}
	s, err := c.openOne(path, base)
	if err != nil {
		if base != nil {
			base.Close()
		}
		return nil, err
	}
	return &openedSpec{spec: s, base: base}, nil
}

func (c *cli) openOne(path string, base *btf.Spec) (*btf.Spec, error) {
	return c.openOneWith(c.ctx, path, c.readOptions(base))
}

// openOneWith is openOne with read options o, whose Base is the base.
func (c *cli) openOneWith(ctx context.Context, path string, o btf.Options) (*btf.Spec, error) {
	s, err := c.openOneWithBase(ctx, path, o)
	if err != nil && o.Base == nil {
		err = splitHint(err, false)
	}
	return s, err
}

// openBase opens path as the base named by -B; its errors start with
// "base: ".
func (c *cli) openBase(path string) (*btf.Spec, error) {
	return c.openBaseWith(c.ctx, path)
}

// openBaseWith is openBase reading under ctx. A base that is itself
// split BTF is said to be one, with what -B takes, not with the hint to
// name a base that the user just named.
func (c *cli) openBaseWith(ctx context.Context, path string) (*btf.Spec, error) {
	s, err := c.openOneWithBase(ctx, path, c.readOptions(nil))
	if err != nil {
		return nil, fmt.Errorf("base: %w", splitHint(err, true))
	}
	return s, nil
}

// splitHint adds to an error from reading BTF without a base that the BTF
// looks split, when it does: its string section is empty or does not
// start with the empty string, as only split BTF's may (the base holds
// it). A split BTF whose strings happen to start with one fails later, on
// a type or a name beyond its own (its ids and offsets continue the
// base's): then the hint is a question, since a damaged file fails the
// same way. The FormatError's message is all that tells these apart.
//
// For the file -B names (asBase), the hint says what a base must be: a
// base that is itself split on another is not read (bpftool and libbpf
// refuse one too).
func splitHint(err error, asBase bool) error {
	var fe *btf.FormatError
	if !errors.As(err, &fe) {
		return err
	}
	hint := "name its base with -B BASE (e.g. -B " + defaultVmlinux + "), or search the running kernel's modules with \"btf find --kernel\""
	if asBase {
		hint = "-B takes complete BTF (a vmlinux's, such as " + defaultVmlinux + "), not BTF split on another"
	}
	switch {
	case fe.Section == "string" && fe.Offset <= 0: // empty (-1), or not starting with NUL
		return fmt.Errorf("%w: this looks like split BTF (a module's): %s", err, hint)
	case fe.Section == "type" && (strings.Contains(fe.Msg, "beyond the last") || strings.Contains(fe.Msg, "outside the string section")):
		return fmt.Errorf("%w (split BTF, a module's? %s)", err, hint)
	}
	return err
}

func (c *cli) openOneWithBase(ctx context.Context, path string, o btf.Options) (*btf.Spec, error) {
	if d, ok := c.takePreread(path); ok {
		// Read once: what is read from it is a copy.
		defer d.Release()
		name := inputName(path)
		s, err := kimage.ReadBTF(ctx, bytes.NewReader(d.Bytes()), o)
		if err != nil {
			return nil, withHint(fmt.Errorf("%s: %w", name, notImage(err)))
		}
		return s, nil
	}
	if path == "-" {
		s, err := kimage.ReadBTF(ctx, c.stdinReader(ctx), o)
		if err != nil {
			return nil, withHint(fmt.Errorf("stdin: %w", notImage(err)))
		}
		return s, nil
	}
	s, err := kimage.OpenBTF(ctx, path, o)
	err = notImage(err)
	if err != nil && !strings.Contains(err.Error(), path) {
		// Some of btf's errors (a bad magic number) do not name the file.
		err = fmt.Errorf("%s: %w", path, err)
	}
	return s, withHint(err)
}

// notImage drops kimage's prefix from an error that kimage handed on
// from btf for input that is no kernel image (plain BTF, ELF, compressed
// BTF): "kimage: btf: FILE: header section: ..." read as if FILE were an
// image. kimage's own errors (an image's, a package's) name the file
// after "kimage: " and keep it.
func notImage(err error) error {
	if err == nil {
		return nil
	}
	if msg, ok := strings.CutPrefix(err.Error(), "kimage: btf: "); ok {
		return &relabeled{msg: "btf: " + msg, err: err}
	}
	return err
}

// relabeled is an error said with another message.
type relabeled struct {
	msg string
	err error
}

func (e *relabeled) Error() string { return e.msg }
func (e *relabeled) Unwrap() error { return e.err }

// kernelHead is how much of an input tells its kind (kimage.Identify).
const kernelHead = kimage.IdentifyLen

// readArg reads the input named path ("-": standard input) whole, under
// the input limit: a file is mapped if it can be. check, if not nil, is
// called with the first checkLen bytes before the rest is read.
func (c *cli) readArg(path string, check func(head []byte) error, checkLen int) (*input.Data, error) {
	var d *input.Data
	var err error
	o := input.Options{Limit: c.maxInput, What: inputName(path), Check: check, CheckLen: checkLen}
	if path == "-" {
		d, err = input.ReadAll(c.ctx, c.stdinReader(c.ctx), o)
	} else {
		d, err = input.File(c.ctx, path, o)
	}
	if err != nil {
		return nil, withHint(err)
	}
	return d, nil
}

// takePreread returns, and forgets, the input that checkBTFInputs read
// for path. Inputs are opened on several goroutines at once (btf dedup).
func (c *cli) takePreread(path string) (*input.Data, bool) {
	c.prereadMu.Lock()
	defer c.prereadMu.Unlock()
	d, ok := c.preread[path]
	delete(c.preread, path)
	return d, ok
}
