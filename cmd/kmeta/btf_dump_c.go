package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
)

// dumpCFlags are the flags of "btf dump" that only --format c takes.
type dumpCFlags struct {
	unsorted bool
	compat   string
}

func (f *dumpCFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.unsorted, "unsorted", false, `with --format c: types in id order, as bpftool 7.5's "format c unsorted"`)
	cmd.Flags().StringVar(&f.compat, "compat", "", "with --format c: print as `TOOL` does: bpftool-7.1 (Debian 12) or bpftool-7.5 (the default)")
}

// options checks the flags against the format and returns the options of
// cdump.Write.
func (f *dumpCFlags) options(format, types string) (cdump.Options, error) {
	if format != "c" {
		switch {
		case f.unsorted:
			return cdump.Options{}, fmt.Errorf("--unsorted works with --format c only")
		case f.compat != "":
			return cdump.Options{}, fmt.Errorf("--compat works with --format c only")
		}
		return cdump.Options{}, nil
	}
	compat, err := cdump.ParseCompat(f.compat)
	if err != nil {
		return cdump.Options{}, fmt.Errorf("--compat %q: want bpftool-7.1 or bpftool-7.5", f.compat)
	}
	if types != "" && f.unsorted {
		return cdump.Options{}, fmt.Errorf("--unsorted and --types cannot be used together")
	}
	return cdump.Options{Types: splitNames(types), Unsorted: f.unsorted, Compat: compat}, nil
}

// btfDumpC prints s as a C header; with opts.Types, only those types and
// what they need. For split BTF the header holds the base types too, as
// "bpftool -B BASE btf dump file FILE format c" prints them.
func (c *cli) btfDumpC(w io.Writer, s *btf.Spec, opts cdump.Options) error {
	return cdump.WriteContext(c.ctx, w, s, opts)
}
