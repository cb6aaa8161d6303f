package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/input"
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
pahole -j1's. A progress line appears when stderr is a terminal and the
work takes over a second. FILE "-" reads standard input; OUT "-" writes
to standard output.`,
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
	if stdinTwice(path, f.base) {
		return usagef("FILE and -B BASE cannot both be standard input (\"-\")")
	}
	if err := checkOutput(f.out, path, f.base); err != nil {
		return err
	}
	if f.jobs < 0 {
		return usagef("-j %d: want a positive number of workers", f.jobs)
	}
	// The encoder's heap is small beside its records, which are not on
	// it, and its garbage is mostly pointer-free: collecting at half the
	// live heap's growth (GOGC=50) took a vmlinux's peak RSS from 251 to
	// 227-230 MB at the same speed (dwarf2btf/BENCH.md).
	defer setGC(50)()
	// The input's magic is checked before the base is read.
	src, err := c.openEncodeSource(path)
	if err != nil {
		return err
	}
	defer src.release()
	opts := dwarf2btf.Options{Jobs: f.jobs, MaxInput: c.maxInput}
	if f.base != "" {
		base, err := c.openOne(f.base, nil)
		if err != nil {
			return fmt.Errorf("base: %w", err)
		}
		defer base.Close()
		opts.Base = base
	}
	if isTerminal(c.stderr) {
		opts.Progress = c.counter("encoding compile units")
	}
	ctx := cmd.Context()
	if f.noDedup {
		b, err := src.encode(ctx, opts)
		if err != nil {
			return err
		}
		return c.writeBTF(b, f.out, f.write, path, f.base)
	}
	wopts, err := f.write.options()
	if err != nil {
		return err
	}
	raw, err := src.dedup(ctx, opts, wopts)
	if err != nil {
		return err
	}
	if f.write.elf || strings.HasSuffix(f.out, ".o") {
		if raw, err = builder.ELF(raw); err != nil {
			return err
		}
	}
	return c.writeOutput(f.out, raw, path, f.base)
}

// encodeSource is the input of btf encode: a file, which dwarf2btf maps
// and gives its pages back as it goes, or standard input, a pipe or a
// device, read whole here.
type encodeSource struct {
	path string
	data *input.Data // nil for a file
}

// openEncodeSource checks the magic of the input at path ("-": standard
// input) before anything else: a file by its first bytes, anything else
// as it is read.
func (c *cli) openEncodeSource(path string) (*encodeSource, error) {
	const what = "vmlinux or module"
	regular, head, err := headOfFile(path, magicLen)
	if err != nil {
		return nil, err
	}
	if regular {
		return &encodeSource{path: path}, checkELF(path, what)(head)
	}
	d, err := c.readELF(path, what)
	if err != nil {
		return nil, err
	}
	return &encodeSource{path: path, data: d}, nil
}

func (s *encodeSource) encode(ctx context.Context, opts dwarf2btf.Options) (*builder.Builder, error) {
	if s.data == nil {
		return dwarf2btf.EncodeFile(ctx, s.path, opts)
	}
	b, err := dwarf2btf.Encode(ctx, s.data.Bytes(), opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(s.path), err)
	}
	return b, nil
}

func (s *encodeSource) dedup(ctx context.Context, opts dwarf2btf.Options, out builder.Options) ([]byte, error) {
	if s.data == nil {
		return dwarf2btf.DedupFile(ctx, s.path, opts, out)
	}
	raw, err := dwarf2btf.Dedup(ctx, s.data.Bytes(), opts, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(s.path), err)
	}
	return raw, nil
}

func (s *encodeSource) release() {
	if s.data != nil {
		s.data.Release()
	}
}
