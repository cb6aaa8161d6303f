package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/kimage"
)

type btfEncodeFlags struct {
	base     string
	out      string
	jobs     int
	noDedup  bool
	like     string
	features string
	write    btfWriteFlags
	distill  distilledOut
	each     bool
	dir      string
	ko       bool
	whole    bool
}

func (c *cli) btfEncodeCmd() *cobra.Command {
	var f btfEncodeFlags
	cmd := &cobra.Command{
		Use:   "encode FILE [-B BASE] -o OUT [-j N] | encode --each -B VMLINUX -d OUTDIR [--ko] MODULE...",
		Short: "Encode BTF from the DWARF of a vmlinux or module, as the kernel's build does",
		Long: `Encode the DWARF debug information of FILE (a vmlinux, or a .ko, also
.ko.gz, .ko.xz or .ko.zst, or the vmlinux of a kernel's debug package:
a kernel-debuginfo RPM, a Debian linux-image-*-dbg package) as BTF, and write it to OUT: raw BTF, or with
--elf (or OUT ending in ".o") an ELF object holding a .BTF section. With
-B BASE (vmlinux's BTF), FILE is a module and OUT is split BTF on BASE.

By default the output is what FILE's kernel's own build writes. The kernel
release is read from FILE: the "Linux version RELEASE" text of the
linux_banner symbol in a vmlinux, the vermagic of a module's .modinfo.
Releases before 6.12 are encoded as pahole 1.24 does when Linux 6.1's
build runs it (-J --btf_gen_floats --lang_exclude=rust: Debian 12; that
build also passes -j, whose type order in pahole 1.24 depends on thread
timing, so no two runs agree: kmeta writes what -j1 writes, the one
reproducible output of those flags), 6.12 to 6.x, and files without a
release, as pahole 1.30 does with the flags of Linux 6.12's
scripts/Makefile.btf (--btf_features=default, that is encode_force, var, float, decl_tag, type_tag, enum64, optimized_func,
consistent_func and decl_tag_kfuncs, with --lang_exclude=rust: Debian 13),
and 7.0 on as pahole 1.30 followed by resolve_btfids --btf, as Linux 7's
scripts/gen-btf.sh runs them (kfunc tags and prototypes, a second
deduplication, types sorted by name: Debian 13's backports). --like
pahole-1.24, pahole-1.30 or linux-7 chooses instead of the release;
--features LIST takes pahole's --btf_features syntax (names separated by
commas, "default", a leading "+" adds to the defaults) and implies
pahole-1.30. With the distilled_base feature (--features +distilled_base,
as Linux 6.12's kbuild asks for external modules) a module's BTF is
written on a distilled base, as pahole 1.30 writes .BTF and .BTF.base: OUT
is then an ELF object with both sections (--elf), or the raw .BTF with
--base-out FILE receiving the raw .BTF.base ("btf distill" does the same
for a module already encoded). -j N sets the number of workers (default: every CPU); the
output is the same for every N. A progress line appears when stderr is a
terminal and the work takes over a second. FILE "-" reads standard input,
a module, a vmlinux or a debug package as from a file, held in memory
whole (under --max-input); OUT "-" writes to standard output.

With --each, every MODULE (a .ko, also compressed, or a directory searched
for them: a -dbg package's unpacked tree) is encoded on its own on BASE,
prepared once, with one module per CPU (-j sets how many at once), and
written to OUTDIR/NAME.btf (raw BTF), or with --ko to OUTDIR/NAME.ko, a
copy of the module with .BTF written into it as pahole -J writes it (see
"kmeta pahole"; uncompressed modules only). A module that fails is named
on stderr, one line each, once the batch is done; every other module's
output is written, as the kernel's build running pahole -J on each
module (make -k) writes it, and the exit status is 2. With
--all-or-nothing the first failure ends the batch and OUTDIR is left as
it was; an interrupted batch (SIGINT, SIGTERM) leaves it so too. The
outputs are renamed into OUTDIR together at the end. Memory holds the
modules being encoded, not all of them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.each {
				return c.btfEncodeEach(cmd, args, f)
			}
			if len(args) != 1 || f.dir != "" || f.ko || f.whole {
				return usagef("one FILE, and -d, --ko and --all-or-nothing only with --each")
			}
			return c.btfEncode(cmd, args[0], f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` (vmlinux's) for a module")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "output `FILE` (\"-\" for stdout)")
	cmd.Flags().IntVarP(&f.jobs, "jobs", "j", 0, "number of workers (default: every CPU)")
	cmd.Flags().BoolVar(&f.noDedup, "no-dedup", false, "write the types as encoded, before deduplication")
	cmd.Flags().StringVar(&f.like, "like", "kernel", "encode as `TOOL` does: kernel (FILE's build), pahole-1.24, pahole-1.30 or linux-7")
	cmd.Flags().StringVar(&f.features, "features", "", "pahole 1.30's --btf_features `LIST` (implies --like pahole-1.30 unless linux-7)")
	cmd.Flags().BoolVar(&f.each, "each", false, "encode each MODULE on its own on -B BASE into -d OUTDIR")
	cmd.Flags().StringVarP(&f.dir, "dir", "d", "", "output `DIR` for --each")
	cmd.Flags().BoolVar(&f.ko, "ko", false, "with --each, write each module with its .BTF section, as pahole -J does")
	allOrNothingFlag(cmd, &f.whole)
	f.write.register(cmd)
	f.distill.register(cmd)
	// pahole writes BTF in the byte order of the file it encodes.
	cmd.Flags().Lookup("endian").Usage = "byte order of the output: `big` or little (default: FILE's, as pahole writes it)"
	return cmd
}

func (c *cli) btfEncode(cmd *cobra.Command, path string, f btfEncodeFlags) error {
	// A writer whose peak is set against its C peer's (pahole) gives
	// back the pages that starting the process touched, as btf dedup
	// does (cmd/kmeta/BENCH.md; dwarf2btf/BENCH.md, "One big compile
	// unit").
	dropStartupPages()
	if stdinTwice(path, f.base) {
		return usagef("FILE and -B BASE cannot both be standard input (\"-\")")
	}
	if err := checkOutput(f.out, path, f.base); err != nil {
		return err
	}
	if f.jobs < 0 {
		return usagef("-j %d: want a positive number of workers", f.jobs)
	}
	opts, err := c.encodeOptions(cmd, f)
	if err != nil {
		return err
	}
	distilled := opts.Features&dwarf2btf.FeatureDistilledBase != 0
	if err := f.checkDistilled(distilled, path); err != nil {
		return err
	}
	// The input's magic is checked before the base is read.
	src, err := c.openEncodeSource(path)
	if err != nil {
		return err
	}
	defer src.release()
	defer src.tuneGC()()
	if f.base != "" {
		base, err := c.openBase(f.base)
		if err != nil {
			return err
		}
		defer base.Close()
		opts.Base = base
		if !distilled {
			// Only the Base reads the records; distilling reads the
			// base's Spec after it (btfmem.LastReader).
			btfmem.LastReader(base)
		}
	}
	if isTerminal(c.stderr) {
		opts.Progress = c.counter("encoding compile units")
	}
	ctx := cmd.Context()
	wopts, err := f.write.options()
	if err != nil {
		return err
	}
	if wopts.ByteOrder == nil {
		// pahole writes BTF in its input's byte order.
		if wopts.ByteOrder, err = src.byteOrder(c); err != nil {
			return err
		}
	}
	// The encoder's heap is garbage once the units are encoded: give it
	// back, if it is large enough to matter, before the deduplication
	// allocates its maps, which lowers the peak (dwarf2btf.Options.Encoded).
	opts.Encoded = freeHeap
	opts.NoDedup = f.noDedup
	raw, err := src.build(ctx, opts, wopts)
	if err != nil {
		return err
	}
	if distilled {
		split, err := btf.Parse(raw, btf.Options{Base: opts.Base})
		if err != nil {
			return err
		}
		return c.writeDistilled(split, f.distill, path, f.base)
	}
	if f.write.elf || strings.HasSuffix(f.out, ".o") {
		if raw, err = builder.ELF(raw); err != nil {
			return err
		}
	}
	return c.writeOutput(f.out, raw, path, f.base)
}

// checkDistilled checks the flags that the distilled_base feature (on
// when distilled) needs or excludes.
func (f *btfEncodeFlags) checkDistilled(distilled bool, path string) error {
	if !distilled {
		if f.distill.baseOut != "" {
			return usagef("--base-out is for a distilled module: add --features +distilled_base")
		}
		return nil
	}
	switch {
	case f.base == "":
		return usagef("the distilled_base feature distills a module's BTF: name its base with -B BASE")
	case f.noDedup:
		return usagef("the distilled_base feature distills the deduplicated BTF: drop --no-dedup")
	case f.write.layout:
		return usagef("a distilled module is written as pahole writes it: drop --layout")
	}
	f.distill.out, f.distill.elf = f.out, f.write.elf
	return f.distill.check(path, f.base)
}

// encodeOptions returns the encoder's options that --like, --features
// and -j choose.
func (c *cli) encodeOptions(cmd *cobra.Command, f btfEncodeFlags) (dwarf2btf.Options, error) {
	like, err := dwarf2btf.ParseCompat(f.like)
	if err != nil {
		return dwarf2btf.Options{}, usageError(cmd, err)
	}
	opts := dwarf2btf.Options{Jobs: f.jobs, MaxSize: c.maxInput, Compat: like}
	if f.features == "" {
		return opts, nil
	}
	if like == dwarf2btf.CompatPahole124 {
		return opts, usageError(cmd, fmt.Errorf("--features needs pahole 1.30: drop --like pahole-1.24"))
	}
	if opts.Features, err = dwarf2btf.ParseFeatures(f.features); err != nil {
		return opts, usageError(cmd, err)
	}
	if opts.Features == 0 {
		return opts, usageError(cmd, fmt.Errorf("--features %q: no feature", f.features))
	}
	if like != dwarf2btf.CompatLinux7 {
		opts.Compat = dwarf2btf.CompatPahole130
	}
	return opts, nil
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
	regular, head, err := headOfFile(path, kernelHead)
	if err != nil {
		return nil, err
	}
	if regular && isPackage(head) {
		d, err := c.packageVmlinux(path)
		return &encodeSource{path: path, data: d}, err
	}
	if regular {
		if err := checkELF(path, what)(head[:min(len(head), magicLen)]); err != nil {
			return nil, err
		}
		if kimage.Identify(head) == kimage.KindCompressed {
			if err := c.checkCompressedFile(path, what); err != nil {
				return nil, err
			}
		}
		return &encodeSource{path: path}, nil
	}
	name := inputName(path)
	d, err := c.readArg(path, checkEncodeHead(name, what), kernelHead)
	if err != nil {
		return nil, err
	}
	if isPackage(d.Bytes()) {
		v, err := c.debugVmlinux(name, d)
		d.Release()
		return &encodeSource{path: path, data: v}, err
	}
	if d, err = c.inflateELF(name, what, d); err != nil {
		return nil, err
	}
	return &encodeSource{path: path, data: d}, nil
}

// checkEncodeHead is checkELF for an input that may also be a debug
// package, read from standard input, a pipe or a device.
func checkEncodeHead(name, what string) func(head []byte) error {
	elfCheck := checkELF(name, what)
	return func(head []byte) error {
		if isPackage(head) || elfCheck(head) == nil {
			return nil
		}
		if len(head) == 0 {
			return elfCheck(head) // "it is empty"
		}
		return fmt.Errorf("%s: not a %s or a kernel's debug package: it starts with %x, not with ELF's magic (7f454c46), a compressor's, a Debian package's or an RPM's", name, what, head[:min(len(head), magicLen)])
	}
}

// build returns the input's BTF as its kernel's build makes it
// (before the deduplication, with opts.NoDedup).
func (s *encodeSource) build(ctx context.Context, opts dwarf2btf.Options, out builder.Options) ([]byte, error) {
	if s.data == nil {
		return dwarf2btf.EncodeFile(ctx, s.path, opts, out)
	}
	raw, err := dwarf2btf.Encode(ctx, s.data.Bytes(), opts, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(s.path), err)
	}
	return raw, nil
}

// byteOrder returns the byte order of the input's ELF file: read whole
// already, or else mapped for its first bytes.
func (s *encodeSource) byteOrder(c *cli) (binary.ByteOrder, error) {
	data := s.data
	if data == nil {
		d, err := input.File(c.ctx, s.path, input.Options{Limit: c.maxInput})
		if err != nil {
			return nil, err
		}
		defer d.Release()
		data = d
	}
	order, err := dwarf2btf.ByteOrder(data.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(s.path), err)
	}
	return order, nil
}

// encodeGCFrom is the input size from which the encoder collects at
// GOGC=50 (see tuneGC).
const encodeGCFrom = 64 << 20

// tuneGC lowers GOGC to 50 for a large input and returns the function
// that restores it. The encoder's heap is small beside its records,
// which are not on it, and its garbage is mostly pointer-free:
// collecting at half the live heap's growth lowers a vmlinux's peak RSS
// at the same speed (dwarf2btf/BENCH.md). On a small input it does the
// opposite: GOGC=50 halves the runtime's smallest heap goal (4 MB) to
// 2 MB, and an object of a few KB then ran three collections, 5 ms of
// CPU over pahole's and more memory, not less (cmd/kmeta/BENCH.md, "The
// encoder's collector on small inputs"); on modules of 1-50 MB the two
// settings peak alike.
func (s *encodeSource) tuneGC() (restore func()) {
	size := int64(0)
	if s.data != nil {
		size = int64(len(s.data.Bytes()))
	} else if fi, err := os.Stat(s.path); err == nil {
		size = fi.Size()
	}
	if size < encodeGCFrom {
		return func() {}
	}
	return setGC(50)
}

func (s *encodeSource) release() {
	if s.data != nil {
		s.data.Release()
	}
}
