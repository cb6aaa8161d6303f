package main

import (
	"errors"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// btfDumpC prints s as a C header; with names, only those types and what
// they need. Owned by the C dump work (issue 4).
func (c *cli) btfDumpC(w io.Writer, s *btf.Spec, names []string) error {
	return errors.New("--format c is not implemented yet")
}
