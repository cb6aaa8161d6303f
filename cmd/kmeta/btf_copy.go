package main

import (
	"encoding/binary"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf/builder"
)

var (
	bigEndian    binary.ByteOrder = binary.BigEndian
	littleEndian binary.ByteOrder = binary.LittleEndian
)

type btfCopyFlags struct {
	base  string
	out   string
	write btfWriteFlags
}

func (c *cli) btfCopyCmd() *cobra.Command {
	var f btfCopyFlags
	cmd := &cobra.Command{
		Use:   "copy FILE -o OUT",
		Short: "Rewrite BTF (convert byte order, header, ELF/raw)",
		Long: `Copy every type of FILE into OUT as it is, as libbpf writes back BTF it
parsed: the same records, type ids and string section, after a header that
lays the sections out in order, in FILE's byte order (libbpf too writes
BTF back in the order it read it). A way to change the byte order
(--endian), add the layout header (--layout) or wrap raw BTF in an ELF
object (OUT ending in ".o", or --elf). With -B BASE, FILE is split BTF and OUT is split
BTF on the same base. The type ids are kept, so a FILE of more types than
the kernel loads (1,048,575) is copied, and the kernel refuses the copy.
"-" reads stdin or writes to stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.btfCopy(args[0], f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` for split BTF (module BTF on vmlinux)")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "output `FILE` (\"-\" for stdout)")
	f.write.register(cmd)
	// libbpf's btf__raw_data writes BTF back in the byte order it was
	// parsed in (btf.c keeps swapped_endian from btf__parse).
	cmd.Flags().Lookup("endian").Usage = "byte order of the output: `big` or little (default: FILE's, as libbpf writes it back)"
	return cmd
}

func (c *cli) btfCopy(path string, f btfCopyFlags) error {
	again := releaseStartup
	dropStartupPages()
	if err := checkOutput(f.out, path, f.base); err != nil {
		return err
	}
	opts, err := f.write.options()
	if err != nil {
		return err
	}
	c.evictOpen = true
	o, err := c.openSpec(path, f.base)
	if err != nil {
		return err
	}
	defer o.Close()
	if opts.ByteOrder == nil {
		opts.ByteOrder = o.spec.ByteOrder()
	}
	// The records go from the input to the output a buffer at a time
	// (builder.WriteAsIs, or WriteCopy for a FILE not on BASE): beside the
	// input, nothing is held (WriteCopy: at most the output's string
	// index, and the strings themselves only with a base), as a reading
	// command's holds its tables.
	boundMemory(o.spec)
	// Opening ran code that the copy does not run again (the format
	// probes, the check of every record): its pages leave before the
	// copy's peak (cmd/kmeta/BENCH.md).
	if again != nil {
		again()
	}
	// A copy of FILE on its own base keeps its records and strings as
	// they are (builder.WriteAsIs), as libbpf writes back BTF it parsed.
	write, writeELF := builder.WriteCopy, builder.WriteCopyELF
	if builder.AsIs(o.spec, o.base) {
		write, writeELF = builder.WriteAsIs, builder.WriteAsIsELF
	}
	if f.write.elf || strings.HasSuffix(f.out, ".o") {
		write = writeELF
	}
	return c.writeOutputWith(f.out, func(w io.Writer) error { return write(w, o.spec, o.base, opts) }, path, f.base)
}
