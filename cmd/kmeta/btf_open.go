package main

import (
	"fmt"
	"io"

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
	if isKernelImage(path) {
		return c.openKernelImage(path, base)
	}
	return btf.OpenWith(path, c.readOptions(base))
}

// isKernelImage reports whether path is a regular file that starts as an
// x86 bzImage or a Debian package.
func isKernelImage(path string) bool {
	f, fi, err := input.OpenFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 0x250)
	n, _ := io.ReadFull(f, head)
	return kimage.IsBzImage(head[:n]) || kimage.IsDeb(head[:n])
}

// openKernelImage reads the BTF of the kernel in an x86 bzImage or a
// Debian package: the kernel is decompressed as a stream into btf's reader,
// which keeps only the .BTF section.
func (c *cli) openKernelImage(path string, base *btf.Spec) (*btf.Spec, error) {
	d, err := input.File(c.ctx, path, input.Options{Limit: c.maxInput})
	if err != nil {
		return nil, withHint(err)
	}
	defer d.Release()
	r, _, err := kimage.Kernel(c.ctx, d.Bytes(), c.maxInput)
	if err != nil {
		return nil, withHint(fmt.Errorf("%s: %w", path, err))
	}
	s, err := btf.ReadWith(r, c.readOptions(base))
	if err != nil {
		return nil, withHint(fmt.Errorf("%s: %w", path, err))
	}
	return s, nil
}
