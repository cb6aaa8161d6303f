package main

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
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
	if path == "-" {
		s, err := btf.ReadWith(c.stdinReader(), c.readOptions(base))
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		return s, nil
	}
	return btf.OpenWith(path, c.readOptions(base))
}
