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
	c      dumpCFlags
}

func (c *cli) btfDumpCmd() *cobra.Command {
	var f btfDumpFlags
	cmd := &cobra.Command{
		Use:   "dump [FILE] | id ID | prog ID | map ID [key|value|kv|all]",
		Short: "Print BTF as bpftool does (raw text, or C with --format c)",
		Long: `Print the types of FILE (default ` + defaultVmlinux + `; "-" reads stdin).
FILE may be raw BTF, or an ELF file (vmlinux, .ko, .o) with a .BTF section,
also compressed as .gz, .xz or .zst.

--format raw (the default) prints what "bpftool btf dump file FILE" prints,
byte for byte; with -B only the split types, as "bpftool -B BASE" does.
--format c prints a C header (vmlinux.h) as bpftool 7.5's "format c" does,
types sorted by name, but with the type that sorts first, which bpftool 7.5
leaves out by mistake; --unsorted prints them in id order, as "format c
unsorted"; --compat bpftool-7.1 prints what Debian 12's bpftool 7.1 prints.

"id ID", "prog ID" and "map ID" print a BTF object of the running kernel
(see "kmeta btf list"), the BTF a program was loaded with, or a map's key
and value types (key, value, kv or all of its BTF), as "bpftool btf dump id
ID", "prog id ID" and "map id ID" do; a module's BTF is read on -B BASE or
on the running kernel's vmlinux. Needs root (CAP_SYS_ADMIN); an id that
does not exist, or a program or map without BTF, gives exit status 1.`,
		Args: cobra.ArbitraryArgs, // checked in RunE: FILE, or id|prog|map ID ...
		RunE: func(cmd *cobra.Command, args []string) error {
			if isLiveDump(args) {
				return c.btfDumpLive(cmd, args, f)
			}
			if err := cobra.MaximumNArgs(1)(cmd, args); err != nil {
				return usageError(cmd, err)
			}
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
	f.c.register(cmd)
	return cmd
}

func (c *cli) btfDump(path string, f btfDumpFlags) error {
	if f.json && f.format != "raw" {
		return usagef("--json works with --format raw only")
	}
	if f.types != "" && f.format != "c" {
		return usagef("--types works with --format c only")
	}
	copts, err := f.c.options(f.format, f.types)
	if err != nil {
		return err
	}
	o, err := c.openSpec(path, f.base)
	if err != nil {
		return err
	}
	defer o.Close()
	boundMemory(o.spec)
	w := bufio.NewWriterSize(c.out(), 256<<10)
	opts := rawdump.Options{Scope: btf.ScopeAll}
	if o.base != nil {
		opts.Scope = btf.ScopeOwn
	}
	switch {
	case f.format == "raw" && f.json:
		err = rawdump.WriteJSON(w, o.spec, opts)
	case f.format == "raw":
		err = rawdump.Write(w, o.spec, opts)
	case f.format == "c":
		err = c.btfDumpC(w, o.spec, copts)
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
