package main

import (
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
)

// btfDumpC prints s as a C header; with names, only those types and what
// they need. For split BTF the header holds the base types too, as
// "bpftool -B BASE btf dump file FILE format c" prints them.
func (c *cli) btfDumpC(w io.Writer, s *btf.Spec, names []string) error {
	return cdump.Write(w, s, cdump.Options{Types: names})
}
