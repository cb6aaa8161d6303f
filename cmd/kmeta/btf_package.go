package main

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/kimage"
)

// openPackage reads the BTF of a Debian kernel package ("-": standard
// input) under the input limit: its kernel's and every module's.
// Unpacking a kernel package takes seconds, so a terminal gets a progress
// line meanwhile.
func (c *cli) openPackage(path string) (*kimage.Package, error) {
	defer c.busy("reading the kernel package " + inputName(path))()
	var pkg *kimage.Package
	var err error
	if path == "-" {
		if pkg, err = kimage.ReadPackage(c.ctx, c.stdinReader(), kimage.Options{MaxSize: c.maxInput}); err != nil {
			err = fmt.Errorf("standard input: %w", err)
		}
	} else {
		pkg, err = kimage.OpenPackage(c.ctx, path, kimage.Options{MaxSize: c.maxInput})
	}
	return pkg, withHint(err)
}
