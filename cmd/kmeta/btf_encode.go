package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
)

type btfEncodeFlags struct {
	base    string
	out     string
	jobs    int
	noDedup bool
	write   btfWriteFlags
}

func (c *cli) btfEncodeCmd() *cobra.Command {
	var f btfEncodeFlags
	cmd := &cobra.Command{
		Use:   "encode FILE [-B BASE] -o OUT [-j N]",
		Short: "Encode BTF from the DWARF of a vmlinux or module, as pahole -J",
		Long: `Encode the DWARF debug information of FILE (a vmlinux, or a .ko, also
.ko.gz, .ko.xz or .ko.zst) as BTF, making the choices pahole 1.24 makes
when Linux 6.1's build runs it (-J --btf_gen_floats --lang_exclude=rust),
and write it to OUT: raw BTF, or with --elf (or OUT ending in ".o") an ELF
object holding a .BTF section. With -B BASE (vmlinux's BTF), FILE is a
module and OUT is split BTF on BASE. -j N sets the number of workers
(default: every CPU); the output is the same for every N, and equals
pahole -j1's. A progress line appears when stderr is a terminal.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.btfEncode(cmd, args[0], f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` (vmlinux's) for a module")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "output `FILE` (\"-\" for stdout)")
	cmd.Flags().IntVarP(&f.jobs, "jobs", "j", 0, "number of workers (default: every CPU)")
	cmd.Flags().BoolVar(&f.noDedup, "no-dedup", false, "write the types as encoded, before deduplication")
	f.write.register(cmd)
	// pahole writes BTF in the byte order of the file it encodes.
	cmd.Flags().Lookup("endian").Usage = "byte order of the output: `big` or little (default: FILE's, as pahole writes it; the host's with --no-dedup)"
	return cmd
}

func (c *cli) btfEncode(cmd *cobra.Command, path string, f btfEncodeFlags) error {
	if f.out == "" {
		return fmt.Errorf("missing -o OUT")
	}
	if f.jobs < 0 {
		return fmt.Errorf("-j %d: want a positive number of workers", f.jobs)
	}
	// The encoder's heap is small beside its records, which are not on
	// it, and its garbage is mostly pointer-free: collecting at half the
	// live heap's growth (GOGC=50) took a vmlinux's peak RSS from 251 to
	// 227-230 MB at the same speed (dwarf2btf/BENCH.md).
	defer setGC(50)()
	opts := dwarf2btf.Options{Jobs: f.jobs, MaxInput: c.maxInput}
	if f.base != "" {
		base, err := btf.Open(c.ctx, f.base, btf.Options{})
		if err != nil {
			return fmt.Errorf("base: %w", err)
		}
		defer base.Close()
		opts.Base = base
	}
	if isTerminal(c.stderr) {
		opts.Progress = func(done, total int) {
			if done == total || done%64 == 0 {
				fmt.Fprintf(c.stderr, "\rencoding: %d/%d compile units", done, total)
			}
			if done == total {
				fmt.Fprintln(c.stderr)
			}
		}
	}
	if f.noDedup {
		b, err := dwarf2btf.EncodeFile(cmd.Context(), path, opts)
		if err != nil {
			return err
		}
		return c.writeBTF(b, f.out, f.write, path, f.base)
	}
	wopts, err := f.write.options()
	if err != nil {
		return err
	}
	data, err := dwarf2btf.DedupFile(cmd.Context(), path, opts, wopts)
	if err != nil {
		return err
	}
	if f.write.elf || strings.HasSuffix(f.out, ".o") {
		if data, err = builder.ELF(data); err != nil {
			return err
		}
	}
	return c.writeOutput(f.out, data, path, f.base)
}
