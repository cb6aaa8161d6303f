package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kmeta-dev/kmeta/btf/core"
)

// BTFHub archives each kernel's BTF as DISTRO/VERSION/ARCH/RELEASE.btf.tar.xz,
// and its users (BTFHub's tools/btfgen.sh, tracee, Inspektor Gadget's
// btfgen.mk) run "bpftool gen min_core_btf" on each unpacked RELEASE.btf
// into the same tree: DISTRO/VERSION/ARCH/RELEASE.btf, uncompressed (tracee
// embeds the files as they are; Inspektor Gadget packs the whole tree into
// one tar.gz). btf min -d writes that tree for a directory argument.

// batchKernel is one kernel of a batch: its input path, and its output
// path relative to the output directory.
type batchKernel struct {
	path string
	out  string
}

// kernelSuffixes are the compression and archive suffixes an output name
// drops, outermost first: RELEASE.btf.tar.xz gives RELEASE.btf.
var kernelSuffixes = []string{".gz", ".xz", ".zst", ".tar"}

// outputName is a kernel file's output name: its name without the
// compression and archive suffixes.
func outputName(name string) string {
	for _, ext := range kernelSuffixes {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// isTreeKernel reports whether a file met in a directory argument is a
// kernel's BTF: named *.btf, also as .btf.tar and compressed.
func isTreeKernel(name string) bool {
	return strings.HasSuffix(outputName(name), ".btf")
}

// batchKernels lists the kernels of a batch: a file argument is one
// kernel, written under its own name; a directory argument is walked (in
// lexical order, symbolic links not followed), and each kernel file in it
// (isTreeKernel) is written at the same path relative to the directory.
// The output directory outDir is not walked, should it be inside one.
func batchKernels(args []string, outDir string) ([]batchKernel, error) {
	var ks []batchKernel
	skip, _ := os.Stat(outDir)
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			ks = append(ks, batchKernel{path: a, out: outputName(filepath.Base(a))})
			continue
		}
		n := len(ks)
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && skip != nil {
				if fi, err := d.Info(); err == nil && os.SameFile(fi, skip) {
					return filepath.SkipDir
				}
			}
			if !d.Type().IsRegular() || !isTreeKernel(d.Name()) {
				return nil
			}
			rel, err := filepath.Rel(a, p)
			if err != nil {
				return err
			}
			ks = append(ks, batchKernel{path: p, out: filepath.Join(filepath.Dir(rel), outputName(d.Name()))})
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(ks) == n {
			return nil, fmt.Errorf("%s: no kernel BTF in the directory (files named *.btf, *.btf.tar.xz, ...)", a)
		}
	}
	return ks, nil
}

// makeOutputDirs creates the subdirectories of dir that outs need.
func makeOutputDirs(outs []string) error {
	made := map[string]bool{}
	for _, o := range outs {
		d := filepath.Dir(o)
		if made[d] {
			continue
		}
		made[d] = true
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// failedRelos lists the relocations of objs that fail on the target t,
// as "btf core" prints them, each after the object's name.
func (c *cli) failedRelos(t *core.Target, objs []core.Object, names []string) ([]string, error) {
	var lines []string
	for i, obj := range objs {
		err := core.ResolveEach(c.ctx, obj, t, func(r *core.Result) error {
			if !r.Skipped && !r.OK() {
				lines = append(lines, filepath.Base(names[i])+": "+coreLine(r))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// printFailedRelos prints, for each kernel in order, the relocations that
// fail on it (failedRelos), each line after the kernel's output path in
// the output directory.
func (c *cli) printFailedRelos(ks []batchKernel, failed [][]string) error {
	w := bufio.NewWriter(c.out())
	for i, k := range ks {
		for _, l := range failed[i] {
			fmt.Fprintf(w, "%s: %s\n", filepath.ToSlash(k.out), l)
		}
	}
	return w.Flush()
}
