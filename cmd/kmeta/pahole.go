package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/distill"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/elfwrite"
)

func (c *cli) paholeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "pahole -J [OPTIONS] FILE",
		Short: "Encode BTF into FILE with pahole 1.30's command line, for the kernel's build",
		Long: `Encode the DWARF of FILE (a vmlinux or a module) as BTF, as pahole 1.30 does
with the same arguments, and write it as pahole writes it: into FILE's .BTF
section (see below), or with --btf_encode_detached=OUT as raw BTF to OUT.
The kmeta binary does the same when it is run under the name "pahole" (a
symlink), so that the kernel's build can use it: make PAHOLE=/path/to/pahole.

--version prints v1.30: the pahole whose output kmeta reproduces, byte for
byte, which the kernel's scripts/pahole-version.sh reads to choose its
flags. The options taken are those the kernel's build passes, Linux 5.15 to
7.x, in pahole 1.30's spelling: -J, -j[N], --btf_features=LIST (names
separated by commas, "default", a leading "+" adding to the defaults;
names pahole 1.30 does not know are ignored, as it ignores them, and so is
"attributes", as Debian 13's pahole 1.30, built with libbpf 1.5, ignores
it), --btf_base FILE, --btf_encode_detached=FILE, --lang_exclude=rust,
--btf_gen_floats, --skip_encoding_btf_vars, --skip_encoding_btf_enum64
(every enum as ENUM, values cut to 32 bits, as the stable releases of
Linux 5.x ask), --skip_encoding_btf_inconsistent_proto, --btf_gen_optimized. The output
follows the options, as pahole's does, not FILE's kernel release (that is
"kmeta btf encode"). Any other option is an error naming it: pahole's
other jobs (-C, --reorganize, layouts) are "kmeta btf layout".

Without --btf_encode_detached, .BTF goes into FILE as pahole puts it: when
FILE has a .BTF section, its data is replaced and the file laid out again
as libelf does; otherwise "$LLVM_OBJCOPY --add-section .BTF=TMP FILE" runs
(llvm-objcopy when LLVM_OBJCOPY is unset; the kernel's build sets it to its
objcopy). The work is done on a copy: if anything fails, FILE is left as
it was. -j alone runs a worker per CPU, or one for a FILE under 8 MB (a
small module, where more cost more than they save). The output does not
depend on -j; pahole 1.30's -j without
--btf_features=+reproducible_build orders types as its threads finish,
kmeta always as one job does (as reproducible_build does). Without
--lang_exclude=rust, Rust compile units are encoded too, as pahole does.
--btf_encode_detached=OUT is replaced
whole; pahole 1.30 writes over an existing OUT without truncating it.`,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if a == "--help" || a == "-h" || a == "-?" {
					return cmd.Help()
				}
			}
			a, err := parsePaholeArgs(args)
			if err != nil {
				return err
			}
			if a.version {
				_, err := fmt.Fprintln(c.out(), paholeVersion)
				return err
			}
			return c.pahole(cmd.Context(), a)
		},
	}
}

// pahole encodes a.file and writes the result as pahole -J does.
func (c *cli) pahole(ctx context.Context, a *paholeArgs) error {
	dropStartupPages() // as btf encode
	if a.detached != "" {
		if err := checkOutput(a.detached, a.file, a.base); err != nil {
			return err
		}
	}
	opts := dwarf2btf.Options{Jobs: paholeJobs(a.jobs, a.file), MaxSize: c.maxInput, Compat: dwarf2btf.CompatPahole130,
		Features: a.conf.features, KeepRust: a.keepRust, AsLinked: true, Encoded: freeHeap}
	src, err := c.openEncodeSource(a.file)
	if err != nil {
		return err
	}
	defer src.release()
	defer src.tuneGC()()
	var base *btf.Spec
	if a.base != "" {
		if base, err = c.openBase(a.base); err != nil {
			return err
		}
		defer base.Close()
		opts.Base = base
		if !a.conf.distilled {
			// Only the Base reads the records; distilling reads the
			// base's Spec after it (btfmem.LastReader).
			btfmem.LastReader(base)
		}
	}
	var wopts builder.Options
	if wopts.ByteOrder, err = src.byteOrder(c); err != nil {
		return err
	}
	raw, err := src.build(ctx, opts, wopts)
	if err != nil {
		return err
	}
	if a.detached != "" {
		return c.writeOutput(a.detached, raw, a.file, a.base)
	}
	secs := []elfwrite.Section{{Name: ".BTF", Data: raw}}
	if a.conf.distilled {
		if secs, err = distilledSections(raw, base); err != nil {
			return err
		}
	}
	return elfwrite.Write(ctx, a.file, a.file, secs, elfwrite.Options{})
}

// soloInput is the size of a FILE below which pahole's -j (every CPU)
// runs one worker: on a small module, which is what the kernel's build
// mostly runs pahole on, with make running other jobs beside it, the
// workers' own buffers and hand-offs cost more memory and CPU than they
// save (bench/pahole/BENCH.md).
const soloInput = 8 << 20

// paholeJobs is the number of workers for -j N (jobs): 0 (-j alone) means
// every CPU, or one for a file smaller than soloInput. The output does
// not depend on it.
func paholeJobs(jobs int, file string) int {
	if jobs != 0 {
		return jobs
	}
	if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() && fi.Size() < soloInput {
		return 1
	}
	return 0
}

// distilledSections is pahole's --btf_features=distilled_base: the
// module's split BTF raw, distilled against its base as libbpf's
// btf__distill_base does (btf/distill), gives the .BTF and .BTF.base
// sections pahole writes, in that order.
func distilledSections(raw []byte, base *btf.Spec) ([]elfwrite.Section, error) {
	split, err := btf.Parse(raw, btf.Options{Base: base})
	if err != nil {
		return nil, err
	}
	distBase, distSplit, err := distill.Distill(split)
	if err != nil {
		return nil, err
	}
	return []elfwrite.Section{{Name: ".BTF", Data: distSplit}, {Name: ".BTF.base", Data: distBase}}, nil
}

// argsAs returns kmeta's arguments for the command line argv: under the
// name "pahole" (a symlink to kmeta), those of kmeta pahole.
func argsAs(argv []string) []string {
	if len(argv) > 0 && filepath.Base(argv[0]) == "pahole" {
		return append([]string{"pahole"}, argv[1:]...)
	}
	return argv[1:]
}
