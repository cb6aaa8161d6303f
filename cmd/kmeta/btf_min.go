package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf/builder"
)

type btfMinFlags struct {
	base        string
	types       string
	out         string
	fwdPointees bool
	write       btfWriteFlags
}

func (c *cli) btfMinCmd() *cobra.Command {
	var f btfMinFlags
	cmd := &cobra.Command{
		Use:   "min FILE --types NAME[,NAME...] -o OUT",
		Short: "Write minimal BTF: the named types and everything they need",
		Long: `Write standalone BTF holding the types of FILE named by --types, all
matches of each name, and every type they reference, with ids renumbered
densely from 1. FILE may be split BTF (a module) with -B BASE; the output
is still standalone. A name may carry a kind: "struct:task_struct".

--fwd-pointees turns named structs and unions that are reachable only
through pointers into forward declarations, which makes the output much
smaller. OUT ending in ".o" (or --elf) gets an ELF object with a .BTF
section; "-" writes to stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.btfMin(args[0], f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` for split BTF (module BTF on vmlinux)")
	cmd.Flags().StringVar(&f.types, "types", "", "type `NAMES` to keep, comma separated, each NAME or KIND:NAME")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "output `FILE` (\"-\" for stdout)")
	cmd.Flags().BoolVar(&f.fwdPointees, "fwd-pointees", false, "turn structs reachable only through pointers into FWDs")
	f.write.register(cmd)
	return cmd
}

func (c *cli) btfMin(path string, f btfMinFlags) error {
	if f.out == "" {
		return fmt.Errorf("missing -o OUT")
	}
	if f.out != "-" {
		if err := checkOutput(f.out, path, f.base); err != nil {
			return err
		}
	}
	names := splitNames(f.types)
	if len(names) == 0 {
		return fmt.Errorf("missing --types NAME[,NAME...]")
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
	b, err := builder.Minimal(o.spec, want, builder.MinimalOptions{FwdPointees: f.fwdPointees})
	if err != nil {
		return err
	}
	return c.writeBTF(b, f.out, f.write, path, f.base)
}

// btfWriteFlags are the output options shared by min and copy.
type btfWriteFlags struct {
	endian string
	elf    bool
	layout bool
}

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
	var data []byte
	if w.elf || strings.HasSuffix(out, ".o") {
		data, err = b.MarshalELF(opts)
	} else {
		data, err = b.Marshal(opts)
	}
	if err != nil {
		return err
	}
	return c.writeOutput(out, data, inputs...)
}
