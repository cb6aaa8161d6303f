package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/atomicfile"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/elfwrite"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// moduleSuffixes are the file names --each takes in a directory.
var moduleSuffixes = []string{".ko", ".ko.gz", ".ko.xz", ".ko.zst"}

// btfEncodeEach encodes every module of paths on its own against one
// base, one module per worker, and writes what each gives at the end;
// the modules that fail are named then (batchRun).
func (c *cli) btfEncodeEach(cmd *cobra.Command, paths []string, f btfEncodeFlags) error {
	if err := eachFlags(f.base, f.dir, f.out, f.jobs); err != nil {
		return err
	}
	switch {
	case f.write.elf || f.write.layout || f.write.endian != "" || f.noDedup:
		return usagef("--each writes raw BTF (or --ko): --elf, --layout, --endian and --no-dedup do not go with it")
	}
	opts, err := c.encodeOptions(cmd, f)
	if err != nil {
		return err
	}
	mods, err := findModules(paths)
	if err != nil {
		return err
	}
	outs, err := eachModuleOutputs(mods, f.dir, f.ko)
	if err != nil {
		return err
	}
	defer setGC(50)()
	baseSpec, base, err := openBase(c, f.base, func(s *btf.Spec) (*dwarf2btf.Base, error) {
		btfmem.LastReader(s) // read through the Base alone, as btf dedup's
		return dwarf2btf.NewBase(s, dwarf2btf.Options{})
	})
	if err != nil {
		return err
	}
	defer baseSpec.Close()
	opts.Base, opts.DedupBase, opts.Jobs = baseSpec, base, 1
	var batch atomicfile.Batch // one sync for the outputs
	pool := workpool.Options{Workers: f.jobs, Progress: c.progress("encode", len(mods))}
	r := newBatchRun(len(mods), "modules", f.whole)
	err = r.run(c, pool, &batch, func(i int) error {
		return c.encodeModule(&batch, mods[i], outs[i], opts, f.ko)
	})
	if err != nil {
		return err
	}
	return r.finish(c, "btf encode")
}

// encodeModule encodes the module at path and adds it to the batch, for
// out.
func (c *cli) encodeModule(batch *atomicfile.Batch, path, out string, opts dwarf2btf.Options, ko bool) error {
	src := &encodeSource{path: path}
	order, err := src.byteOrder(c)
	if err != nil {
		return err
	}
	raw, err := src.build(c.ctx, opts, builder.Options{ByteOrder: order})
	if err != nil {
		return err
	}
	if ko {
		// The module with its .BTF, as kmeta pahole -J writes it, with
		// the module's permissions.
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		secs := []elfwrite.Section{{Name: ".BTF", Data: raw}}
		return batch.AddNamed(out, fi.Mode().Perm(), func(tmp string) error {
			return elfwrite.Write(c.ctx, path, tmp, secs, elfwrite.Options{})
		})
	}
	return batch.Add(out, raw, 0o644)
}

// findModules returns the modules paths name: files as they are, and the
// modules under each directory, in lexical order.
func findModules(paths []string) ([]string, error) {
	var mods []string
	for _, p := range paths {
		if p == "-" {
			return nil, usagef("--each reads files, not stdin")
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			mods = append(mods, p)
			continue
		}
		err = filepath.WalkDir(walkRoot(p), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if moduleName(d.Name()) == "" || d.IsDir() {
				return nil
			}
			// A symlink counts when it leads to a file: a tree of links
			// to the modules picked for a run.
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				mods = append(mods, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(mods) == 0 {
		return nil, errors.New("no module (.ko, .ko.gz, .ko.xz, .ko.zst) to encode")
	}
	return mods, nil
}

// moduleName is the module's name of a file name ("xfs" of "xfs.ko.xz"),
// or "" when it is not a module's.
func moduleName(file string) string {
	for _, s := range moduleSuffixes {
		if name, ok := strings.CutSuffix(file, s); ok && name != "" {
			return name
		}
	}
	return ""
}

// eachModuleOutputs returns OUTDIR/NAME.btf (or NAME.ko) for every
// module, refusing two modules of one name and an output that is one of
// the inputs.
func eachModuleOutputs(mods []string, dir string, ko bool) ([]string, error) {
	return outputsIn(dir, mods, func(_ int, p string) (string, error) {
		name := moduleName(filepath.Base(p))
		if name == "" {
			name = filepath.Base(p)
		}
		if !ko {
			return name + ".btf", nil
		}
		if name != strings.TrimSuffix(filepath.Base(p), ".ko") {
			return "", fmt.Errorf("%s: --ko writes into uncompressed modules only", p)
		}
		return name + ".ko", nil
	})
}
