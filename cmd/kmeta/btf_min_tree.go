package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

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
// lexical order, symbolic links in it not followed), and each kernel file in it
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
		err = filepath.WalkDir(walkRoot(a), func(p string, d fs.DirEntry, err error) error {
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

// walkRoot returns the root to walk for the directory argument dir: a
// link given as the directory itself (an archive kept on another disk) is
// followed, as the links inside it are not. filepath.WalkDir does not
// follow its root, unless a separator ends it.
func walkRoot(dir string) string {
	if li, err := os.Lstat(dir); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		return dir + string(filepath.Separator)
	}
	return dir
}

// makeOutputDirs creates the subdirectories of dir that outs need, and
// returns those it created, parents first, for removeDirs to take back
// should the batch fail.
func makeOutputDirs(outs []string) ([]string, error) {
	var made []string
	seen := map[string]bool{}
	for _, o := range outs {
		var missing []string
		for d := filepath.Dir(o); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if _, err := os.Lstat(d); err == nil {
				break
			}
			missing = append(missing, d)
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return made, err
			}
			made = append(made, missing[i])
		}
	}
	return made, nil
}

// removeDirs removes the directories makeOutputDirs made, children first,
// each only if it is empty: a batch that writes nothing leaves OUTDIR as
// it found it, and one that writes some kernels leaves no empty directory
// for the others.
func removeDirs(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		os.Remove(made[i])
	}
}

// checkBatchOutputs refuses, before any work, outputs that cannot all be
// written: one that is the directory of another (RELEASE.btf.tar.xz
// beside a directory RELEASE.btf/ holding kernels), or one where a
// directory already is.
func checkBatchOutputs(ks []batchKernel, outs []string, dir string) error {
	index := make(map[string]int, len(outs))
	for i, o := range outs {
		index[o] = i
	}
	for i, o := range outs {
		for d := filepath.Dir(o); d != dir && d != filepath.Dir(d); d = filepath.Dir(d) {
			if j, ok := index[d]; ok {
				return fmt.Errorf("%s and %s: %s would be both a file and a directory", ks[j].path, ks[i].path, d)
			}
		}
		if fi, err := os.Lstat(o); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: %s is in the way of its output (not a regular file)", ks[i].path, o)
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

// relocReport holds the lines of failed relocations of a batch's kernels
// until the batch is committed, in an unlinked temporary file in the
// output directory, and the place of each kernel's lines: 16 bytes a
// kernel in memory. Held in memory, the lines of 20,000 kernels of 45
// bytes took 151 MB, the peak 326 MB, against 2 S + 20 MB (about 22).
type relocReport struct {
	dir  string
	mu   sync.Mutex
	f    *os.File
	size int64
	at   [][2]int64 // each kernel's lines: offset and length in f
}

func newRelocReport(dir string, n int) *relocReport {
	return &relocReport{dir: dir, at: make([][2]int64, n)}
}

// add writes the lines of kernel i, each after out, its output path in
// the output directory.
func (r *relocReport) add(i int, out string, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s: %s\n", filepath.ToSlash(out), l)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		f, err := os.CreateTemp(r.dir, ".kmeta-report-*")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // unlinked: nothing is left, whatever ends the process
		r.f = f
	}
	if _, err := r.f.WriteAt([]byte(b.String()), r.size); err != nil {
		return fmt.Errorf("report of failed relocations: %w", err)
	}
	r.at[i] = [2]int64{r.size, int64(b.Len())}
	r.size += int64(b.Len())
	return nil
}

// drop forgets the lines of kernel i (their bytes stay in the file).
func (r *relocReport) drop(i int) {
	r.mu.Lock()
	r.at[i] = [2]int64{}
	r.mu.Unlock()
}

// writeTo writes the lines, kernel by kernel in order, to w.
func (r *relocReport) writeTo(w io.Writer) error {
	if r.f == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	for _, at := range r.at {
		if _, err := io.Copy(bw, io.NewSectionReader(r.f, at[0], at[1])); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// close closes the temporary file.
func (r *relocReport) close() {
	if r.f != nil {
		r.f.Close()
	}
}
