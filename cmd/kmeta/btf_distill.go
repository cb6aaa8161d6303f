package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/distill"
	"github.com/kmeta-dev/kmeta/internal/atomicfile"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
)

// distilledOut is where a module's distilled BTF goes: OUT, and its
// distilled base in OUT's ELF object (--elf, or OUT ending in ".o") or in
// a file of its own (--base-out).
type distilledOut struct {
	out, baseOut string
	elf          bool
}

func (d *distilledOut) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&d.baseOut, "base-out", "", "with raw output, write the distilled base (.BTF.base) to `FILE`")
}

// check rejects a distilled output that has nowhere to put its base.
func (d *distilledOut) check(inputs ...string) error {
	if d.toELF() {
		if d.baseOut != "" {
			return usagef("--base-out is for raw output: an ELF object holds .BTF.base itself")
		}
		return nil
	}
	if d.baseOut == "" {
		return usagef("a distilled module has two sections: write an ELF object (--elf) or name the distilled base's file with --base-out FILE")
	}
	if d.baseOut == d.out {
		return usagef("--base-out %s: the same file as -o", d.baseOut)
	}
	return checkOutput(d.baseOut, inputs...)
}

func (d *distilledOut) toELF() bool { return d.elf || strings.HasSuffix(d.out, ".o") }

// write distills split, a module's BTF on a full base, and writes its two
// sections as d says.
func (c *cli) writeDistilled(split *btf.Spec, d distilledOut, inputs ...string) error {
	base, raw, err := distill.Distill(split)
	if err != nil {
		return err
	}
	if d.toELF() {
		obj, err := builder.ELFDistilled(raw, base)
		if err != nil {
			return err
		}
		return c.writeOutput(d.out, obj, inputs...)
	}
	if regularOutput(d.out) && regularOutput(d.baseOut) {
		return c.writePair(d, base, raw, inputs)
	}
	if err := c.writeOutput(d.baseOut, base, inputs...); err != nil {
		return fmt.Errorf("--base-out: %w", err)
	}
	return c.writeOutput(d.out, raw, inputs...)
}

// writePair writes the two files of a distilled module, OUT and
// --base-out, together (atomicfile.Batch): a failure or an interrupt
// between them leaves neither, not a .BTF without its .BTF.base.
func (c *cli) writePair(d distilledOut, base, raw []byte, inputs []string) error {
	ins := newInputFiles(inputs...)
	if err := ins.check(d.baseOut); err != nil {
		return fmt.Errorf("--base-out: %w", err)
	}
	if err := ins.check(d.out); err != nil {
		return err
	}
	var batch atomicfile.Batch
	err := batch.Add(d.baseOut, base, 0o644)
	if err != nil {
		err = fmt.Errorf("--base-out: %w", err)
	} else {
		err = batch.Add(d.out, raw, 0o644)
	}
	if err == nil {
		err = context.Cause(c.ctx)
	}
	if err != nil {
		batch.Abort()
		return err
	}
	return batch.Commit()
}

// regularOutput tells whether the output path is, or will be, a regular
// file: not standard output ("-"), a device or a FIFO, which are
// written straight into.
func regularOutput(path string) bool {
	if path == "-" {
		return false
	}
	fi, err := os.Stat(path)
	return err != nil || fi.Mode().IsRegular()
}

func (c *cli) btfDistillCmd() *cobra.Command {
	var d distilledOut
	var base string
	cmd := &cobra.Command{
		Use:   "distill MODULE -B BASE -o OUT (--elf | --base-out FILE)",
		Short: "Write a module's BTF on a distilled base, as libbpf's btf__distill_base",
		Long: `Distill the BTF of MODULE (a .ko, also compressed, or raw split BTF), which
is split BTF on BASE (vmlinux's BTF), as libbpf's btf__distill_base does and
as pahole's --btf_features=distilled_base writes external modules: a small
distilled base (.BTF.base) of the vmlinux types the module names, and the
module's BTF on it (.BTF). Such a module loads on any kernel whose BTF has
those types (of the same size where the module embeds them); the kernel, libbpf's btf__relocate and every kmeta command
that reads a module with -B relocate it onto the base they are given.

With --elf (or OUT ending in ".o") OUT is an ELF object holding .BTF and
.BTF.base; otherwise OUT is the raw .BTF and --base-out FILE receives the
raw .BTF.base. Both are in MODULE's byte order. A MODULE that already has
a .BTF.base is first relocated onto BASE.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if base == "" {
				return usagef("-B BASE is needed: a module is distilled from its split BTF on BASE")
			}
			if err := checkOutput(d.out, args[0], base); err != nil {
				return err
			}
			if err := d.check(args[0], base); err != nil {
				return err
			}
			release := releaseStartup
			dropStartupPages()
			b, err := c.openBase(base)
			if err != nil {
				return err
			}
			defer b.Close()
			// Checking the base read all of it: distilling reads a part.
			btfmem.Evict(b)
			s, err := c.openOne(args[0], b)
			if err != nil {
				return err
			}
			defer s.Close()
			if release != nil {
				release() // the pages of the code that opened the inputs
			}
			// Nothing reads the base's records after distilling: a
			// big-endian base's, swapped in place, go back to the file
			// once distill has copied those it needs.
			btfmem.LastReader(b)
			return c.writeDistilled(s, d, args[0], base)
		},
	}
	cmd.Flags().StringVarP(&base, "base", "B", "", "the module's base BTF `FILE` (vmlinux's)")
	cmd.Flags().StringVarP(&d.out, "output", "o", "", "output `FILE` (\"-\" for stdout)")
	cmd.Flags().BoolVar(&d.elf, "elf", false, "write an ELF object with .BTF and .BTF.base (default when OUT ends in .o)")
	d.register(cmd)
	return cmd
}
