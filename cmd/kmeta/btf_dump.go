package main

import (
	"bufio"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

type btfDumpFlags struct {
	base   string
	format string
	types  string
	json   bool
}

func (c *cli) btfDumpCmd() *cobra.Command {
	var f btfDumpFlags
	cmd := &cobra.Command{
		Use:   "dump [FILE]",
		Short: "Print BTF as bpftool does (raw text, or C with --format c)",
		Long: `Print the types of FILE (default ` + defaultVmlinux + `; "-" reads stdin).
FILE may be raw BTF, or an ELF file (vmlinux, .ko, .o) with a .BTF section,
also compressed as .gz, .xz or .zst.

--format raw (the default) prints what "bpftool btf dump file FILE" prints,
byte for byte; with -B only the split types, as "bpftool -B BASE" does.
--format c prints a C header (vmlinux.h) as "bpftool ... format c" does.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := defaultVmlinux
			if len(args) == 1 {
				path = args[0]
			}
			return c.btfDump(path, f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` for split BTF (module BTF on vmlinux)")
	cmd.Flags().StringVar(&f.format, "format", "raw", "output format: raw or c")
	cmd.Flags().StringVar(&f.types, "types", "", "with --format c: only these type `NAMES` (comma separated) and what they need")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON Lines, one record per type (raw format only)")
	return cmd
}

func (c *cli) btfDump(path string, f btfDumpFlags) error {
	if f.json && f.format != "raw" {
		return usagef("--json works with --format raw only")
	}
	if f.types != "" && f.format != "c" {
		return usagef("--types works with --format c only")
	}
	o, err := c.openSpec(path, f.base)
	if err != nil {
		return err
	}
	defer o.Close()
	w := bufio.NewWriterSize(c.out(), 256<<10)
	opts := rawdump.Options{Scope: btf.ScopeAll}
	if o.base != nil {
		opts.Scope = btf.ScopeOwn
	}
	switch {
	case f.format == "raw" && f.json:
		err = writeTypesJSONLines(w, o.spec, opts.Scope)
	case f.format == "raw":
		err = rawdump.Write(w, o.spec, opts)
	case f.format == "c":
		err = c.btfDumpC(w, o.spec, splitNames(f.types))
	default:
		return usagef("unknown --format %q: want raw or c", f.format)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// splitNames splits a comma-separated list, dropping empty items.
func splitNames(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}
