package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

type btfMinFlags struct {
	base        string
	types       string
	objs        []string
	out         string
	dir         string
	jobs        int
	whole       bool
	fwdPointees bool
	write       btfWriteFlags
}

func (c *cli) btfMinCmd() *cobra.Command {
	var f btfMinFlags
	cmd := &cobra.Command{
		Use:   "min FILE [-B BASE] (--types NAME[,NAME...] | --obj OBJ...) -o OUT",
		Short: "Write minimal BTF: named types and what they need, or what BPF programs' CO-RE relocations use",
		Long: `Write standalone BTF holding the types of FILE named by --types, all
matches of each name, and every type they reference, with ids renumbered
densely from 1. FILE may be split BTF (a module) with -B BASE; the output
is still standalone. A name may carry a kind: "struct:task_struct".

--fwd-pointees turns named structs and unions that are reachable only
through pointers into forward declarations, which makes the output much
smaller. --obj OBJ (repeatable) writes instead the minimal BTF for the BPF
objects' CO-RE relocations, byte for byte what "bpftool gen min_core_btf
FILE OUT OBJ..." writes (bpftool 7.1): each relocation resolves on it as on
FILE. With -B BASE, FILE is module BTF and BASE its vmlinux, searched
first as libbpf does. An object whose .BTF.ext is malformed (a record's
type or string offset, or a section's name, outside its BTF) is refused
in one line, where bpftool may ignore a field it does not read: libbpf
could not load such an object.

Batch mode, -d OUTDIR --obj OBJ... K1 K2 ...: one minimal BTF per kernel
BTF Ki, written to OUTDIR under Ki's file name (without .gz, .xz, .zst,
.tar), the kernels processed in parallel (-j N, default: every core). A
Ki that is a directory is a BTFHub-style tree
(DISTRO/VERSION/ARCH/RELEASE.btf.tar.xz, as BTFHub archives kernels): each
*.btf file in it, also as .btf.tar and compressed, gives
OUTDIR/DISTRO/VERSION/ARCH/RELEASE.btf, uncompressed, the tree that
BTFHub's btfgen.sh writes and tracee and Inspektor Gadget embed (a link
given as Ki is followed, links inside it are not). Outputs that cannot
all be written (one where another's directory goes, a directory in the
way) are refused before any work. A kernel that fails (unreadable, not
BTF, cut short) is named on stderr, one line each, once the batch is
done; every other kernel's output is written, as a loop running bpftool
gen min_core_btf on each kernel writes it, and the exit status is 2.
With --all-or-nothing the first failure ends the batch and OUTDIR is left
as it was; an interrupted batch (SIGINT, SIGTERM) leaves it so too. Then,
for each kernel written in turn, every relocation that fails on it is printed, as
"btf core" prints it, after the output's path and the object's name: the
programs would not load on that kernel unless the instruction is dead
code there (a bpf_core_field_exists() guard). A failing relocation does
not change the exit status: the files are written, as bpftool writes
them. A progress line appears when stderr is a terminal.

A --types NAME that matches no type is an error naming it, with exit
status 1 (nothing found), also when other names are found: no output is
written.

OUT ending in ".o" (or --elf) gets an ELF object with a .BTF
section; "-" writes to stdout, and reads stdin for one of FILE, BASE and
OBJ (not in batch mode).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.dir != "" {
				return cobra.MinimumNArgs(1)(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(f.objs) > 0 && f.types != "":
				return usagef("--types and --obj exclude each other")
			case len(f.objs) > 0 && f.fwdPointees:
				return usagef("--fwd-pointees applies to --types only")
			case f.dir != "" && len(f.objs) == 0:
				return usagef("-d OUTDIR needs --obj")
			case f.dir == "" && f.whole:
				return usagef("--all-or-nothing goes with -d OUTDIR")
			case f.dir != "" && (f.out != "" || f.base != ""):
				return usagef("-d OUTDIR writes one file per kernel: it takes no -o and no -B")
			case f.dir != "":
				return c.btfMinBatch(args, f)
			case len(f.objs) > 0:
				return c.btfMinObjs(args[0], f)
			}
			return c.btfMin(args[0], f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` for split BTF (module BTF on vmlinux)")
	cmd.Flags().StringVar(&f.types, "types", "", "type `NAMES` to keep, comma separated, each NAME or KIND:NAME")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "output `FILE` (\"-\" for stdout)")
	cmd.Flags().BoolVar(&f.fwdPointees, "fwd-pointees", false, "turn structs reachable only through pointers into FWDs")
	cmd.Flags().StringArrayVar(&f.objs, "obj", nil, "BPF `OBJ` whose CO-RE relocations the output serves (repeatable)")
	cmd.Flags().StringVarP(&f.dir, "dir", "d", "", "batch mode: write one output per kernel into `OUTDIR`")
	cmd.Flags().IntVarP(&f.jobs, "jobs", "j", 0, "batch mode: kernels processed at once (`N`, default: number of CPUs)")
	allOrNothingFlag(cmd, &f.whole)
	f.write.register(cmd)
	return cmd
}

func (c *cli) btfMin(path string, f btfMinFlags) error {
	if err := checkOutput(f.out, path, f.base); err != nil {
		return err
	}
	names := splitNames(f.types)
	if len(names) == 0 {
		return usagef("missing --types NAME[,NAME...]")
	}
	want := make([]builder.Want, 0, len(names))
	for _, n := range names {
		w, err := builder.ParseWant(n)
		if err != nil {
			return err
		}
		want = append(want, w)
	}
	o, err := c.openSpec(path, f.base)
	if err != nil {
		return err
	}
	defer o.Close()
	boundMemory(o.spec)
	opts, err := f.write.options()
	if err != nil {
		return err
	}
	mopts := builder.MinimalOptions{FwdPointees: f.fwdPointees}
	// The records go to the output as they are copied: the closure can
	// be as large as the input.
	write := builder.WriteMinimal
	if f.write.elf || strings.HasSuffix(f.out, ".o") {
		write = builder.WriteMinimalELF
	}
	err = c.writeOutputWith(f.out, func(w io.Writer) error { return write(w, o.spec, want, mopts, opts) }, path, f.base)
	if errors.Is(err, btf.ErrNotFound) {
		// A name that matches nothing: nothing is written, exit 1.
		return notFound("%w", err)
	}
	return err
}

// btfWriteFlags are the output options shared by min and copy.
type btfWriteFlags struct {
	endian string
	elf    bool
	layout bool
}

// register adds the flags. The host's order is --endian's default for
// min, as bpftool gen min_core_btf writes a btf__new_empty (libbpf's new
// BTF is in the host's order); copy, dedup and encode each say their own.
func (w *btfWriteFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&w.endian, "endian", "", "byte order of the output: `big` or little (default: the host's)")
	cmd.Flags().BoolVar(&w.elf, "elf", false, "write an ELF object with a .BTF section (default when OUT ends in .o)")
	cmd.Flags().BoolVar(&w.layout, "layout", false, "write the 32-byte header and a layout section (libbpf 1.8; not loadable by older kernels)")
}

func (w btfWriteFlags) options() (builder.Options, error) {
	var opts builder.Options
	switch strings.ToLower(w.endian) {
	case "":
	case "big", "be":
		opts.ByteOrder = bigEndian
	case "little", "le":
		opts.ByteOrder = littleEndian
	default:
		return opts, fmt.Errorf("unknown --endian %q: want big or little", w.endian)
	}
	opts.Layout = w.layout
	return opts, nil
}

// writeBTF marshals b to out: raw BTF, or an ELF object for --elf and names
// ending in ".o". out must not be one of inputs.
func (c *cli) writeBTF(b *builder.Builder, out string, w btfWriteFlags, inputs ...string) error {
	opts, err := w.options()
	if err != nil {
		return err
	}
	return c.writeBTFWith(b, out, w, opts, inputs...)
}

// writeBTFWith is writeBTF with the marshal options already made.
func (c *cli) writeBTFWith(b *builder.Builder, out string, w btfWriteFlags, opts builder.Options, inputs ...string) error {
	data, err := marshalBTF(b, out, w, opts)
	if err != nil {
		return err
	}
	return c.writeOutput(out, data, inputs...)
}

// marshalBTF marshals b as raw BTF, or as an ELF object for --elf and
// names ending in ".o".
func marshalBTF(b *builder.Builder, out string, w btfWriteFlags, opts builder.Options) ([]byte, error) {
	if w.elf || strings.HasSuffix(out, ".o") {
		return b.MarshalELF(opts)
	}
	return b.Marshal(opts)
}
