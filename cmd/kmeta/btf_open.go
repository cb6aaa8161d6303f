package main

import (
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
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
	var base *btf.Spec
	if basePath != "" {
		var err error
		if base, err = c.openOne(basePath, nil); err != nil {
			return nil, fmt.Errorf("base: %w", err)
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
	return c.openOneWith(path, c.readOptions(base))
}

// openOneWith is openOne with read options o, whose Base is the base.
func (c *cli) openOneWith(path string, o btf.Options) (*btf.Spec, error) {
	s, err := c.openOneWithBase(path, o)
	if err != nil && o.Base == nil {
		err = splitHint(err)
	}
	return s, err
}

// splitHint adds to an error from reading BTF without a base that the BTF
// looks split, when it does: its string section is empty or does not
// start with the empty string, as only split BTF's may (the base holds
// it). Its types would then refer to ids and names of a base.
func splitHint(err error) error {
	var fe *btf.FormatError
	if !errors.As(err, &fe) || fe.Section != "string" || fe.Offset != 0 {
		return err
	}
	return fmt.Errorf("%w: this looks like split BTF (a module's): name its base with -B BASE "+
		"(e.g. -B %s), or search the running kernel's modules with \"btf find --kernel\"", err, defaultVmlinux)
}

func (c *cli) openOneWithBase(path string, o btf.Options) (*btf.Spec, error) {
	if path == "-" {
		s, err := kimage.ReadBTF(c.ctx, c.stdinReader(), o)
		if err != nil {
			return nil, withHint(fmt.Errorf("stdin: %w", err))
		}
		return s, nil
	}
	s, err := kimage.OpenBTF(c.ctx, path, o)
	return s, withHint(err)
}

// kernelHead is how much of an input tells a bzImage or a Debian package
// (the setup header ends before it).
const kernelHead = 0x250
