package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/kimage"
)

// isPackage reports whether head starts a Debian or RPM package.
func isPackage(head []byte) bool { return kimage.IsDeb(head) || kimage.IsRPM(head) }

// packageVmlinux reads the vmlinux with DWARF that the debug package at
// path installs (kimage.IsDebugVmlinux: a kernel-debuginfo RPM, a Debian
// -dbg package), under the input limit, checking its ELF magic first.
func (c *cli) packageVmlinux(path string) (*input.Data, error) {
	pkg, err := c.readArg(path, nil, 0)
	if err != nil {
		return nil, err
	}
	defer pkg.Release()
	return c.debugVmlinux(path, pkg)
}

// debugVmlinux is packageVmlinux for the package pkg, read already; path
// names it in errors.
func (c *cli) debugVmlinux(path string, pkg *input.Data) (*input.Data, error) {
	var vmlinux *input.Data
	err := kimage.Walk(c.ctx, pkg.Bytes(), kimage.Options{MaxSize: c.maxInput}, func(name string, size int64, r io.Reader) error {
		if !kimage.IsDebugVmlinux(name) {
			return nil
		}
		what := path + ": " + name
		var err error
		vmlinux, err = input.ReadAll(c.ctx, r, input.Options{Limit: c.maxInput, What: what, Claim: size,
			Check: checkELF(what, "vmlinux"), CheckLen: len(elfMagic)})
		if err != nil {
			return err
		}
		return kimage.ErrStop
	})
	if err != nil {
		if vmlinux != nil {
			vmlinux.Release()
		}
		return nil, withHint(fmt.Errorf("%s: %w", path, err))
	}
	if vmlinux == nil {
		return nil, fmt.Errorf("%s: %w", path, errNoDebugVmlinux)
	}
	return vmlinux, nil
}

var errNoDebugVmlinux = errors.New("the package installs no vmlinux with debug information (usr/lib/debug/lib/modules/*/vmlinux, usr/lib/debug/boot/vmlinux-*): is it a kernel's debuginfo or -dbg package?")
