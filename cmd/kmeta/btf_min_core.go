package main

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/atomicfile"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// openObjects opens the BPF objects of --obj ("-": standard input, once),
// each checked by its magic before it is read, as CO-RE resolution reads
// them; the function returned closes them.
func (c *cli) openObjects(paths []string) ([]core.Object, func(), error) {
	objs := make([]*object, 0, len(paths))
	closeAll := func() {
		for _, o := range objs {
			o.Close()
		}
	}
	stdin := false
	for _, p := range paths {
		if p == "-" && stdin {
			closeAll()
			return nil, nil, fmt.Errorf("--obj -: standard input can be read once only")
		}
		stdin = stdin || p == "-"
		obj, err := c.openObject(p)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		objs = append(objs, obj)
	}
	cobjs := make([]core.Object, len(objs))
	for i, o := range objs {
		cobjs[i] = o.CORE()
	}
	return cobjs, closeAll, nil
}

// targetOptions are the read options of a target BTF for objs (without
// a base): opened lazily, the objects' candidate search made in the walk
// that opening does (btf.Options.Lazy, core.TargetQuery).
func (c *cli) targetOptions(objs []core.Object) btf.Options {
	o := c.readOptions(nil)
	o.Lazy, o.Flavors = true, core.TargetQuery(objs...)
	return o
}

// targetErr returns err, the error of a resolution on the target s read
// from path, or the error of the record of s that failed its check if
// there is one (btf.Options.Lazy), after the path, as opening gives it.
func targetErr(path string, s *btf.Spec, err error) error {
	if lerr := s.Err(); lerr != nil {
		return pkgerr.Errorf("btf: %s: %w", path, lerr)
	}
	return err
}

// btfMinObjs writes the minimal BTF of FILE for the objects' relocations.
func (c *cli) btfMinObjs(path string, f btfMinFlags) error {
	inputs := append([]string{path, f.base}, f.objs...)
	if stdinTwice(inputs...) {
		return usagef("standard input (\"-\") can be only one of FILE, -B BASE and --obj OBJ")
	}
	if err := checkOutput(f.out, inputs...); err != nil {
		return err
	}
	objs, closeObjs, err := c.openObjects(f.objs)
	if err != nil {
		return err
	}
	defer closeObjs()
	var o *openedSpec
	if f.base == "" {
		var s *btf.Spec
		s, err = c.openOneWith(c.ctx, path, c.targetOptions(objs))
		o = &openedSpec{spec: s}
	} else {
		o, err = c.openSpec(path, f.base)
	}
	if err != nil {
		return err
	}
	defer o.Close()
	boundMemory(o.spec)
	t := core.NewTarget(o.spec)
	if o.base != nil {
		t = core.NewTarget(o.base, o.spec)
	}
	b, err := core.TypesFor(c.ctx, t, objs)
	if err != nil {
		return targetErr(path, o.spec, err)
	}
	return c.writeBTF(b, f.out, f.write, inputs...)
}

// btfMinBatch writes one minimal BTF per kernel into f.dir, the kernels
// spread over f.jobs goroutines; the objects are read once and shared.
// Then it prints, kernel by kernel, the relocations that fail on each.
func (c *cli) btfMinBatch(args []string, f btfMinFlags) error {
	opts, err := f.write.options()
	if err != nil {
		return err
	}
	kernels, err := batchKernels(args, f.dir)
	if err != nil {
		return err
	}
	outs, err := batchOutputs(kernels, f.dir)
	if err != nil {
		return err
	}
	if err := checkBatchOutputs(kernels, outs, f.dir); err != nil {
		return err
	}
	objs, closeObjs, err := c.openObjects(f.objs)
	if err != nil {
		return err
	}
	defer closeObjs()
	made, err := makeOutputDirs(outs)
	if err != nil {
		removeDirs(made)
		return err
	}
	// What a kernel's work leaves live is small (its paths, 16 bytes of
	// report): at GOGC 100 the collector ran every few hundred KB of a
	// kernel's garbage, 5.5 times as often as when the report was held.
	// The soft limit keeps GOGC 400's headroom within the README's rule
	// for the batch (1.5 KB a kernel).
	defer setGC(400)()
	limitMemory(minBatchKernelCost * int64(len(kernels)))
	var batch atomicfile.Batch
	report := newRelocReport(f.dir, len(kernels))
	defer report.close()
	pool := workpool.Options{Workers: f.jobs, Progress: c.progress("min", len(kernels))}
	r := newBatchRun(len(kernels), "kernels", f.whole)
	err = r.run(c, pool, &batch, func(i int) error {
		return c.minOne(&batch, report, i, kernels[i], outs[i], objs, f, opts)
	})
	// Directories made for kernels that failed, and for all of them when
	// nothing was written, are left empty: they go.
	removeDirs(made)
	if err != nil {
		return err
	}
	if err := report.writeTo(c.out()); err != nil {
		return err
	}
	return r.finish(c, "btf min")
}

// minBatchKernelCost is what min -d keeps for each kernel of a batch
// (the README's rule): its paths, for the checks of the outputs and the
// one commit, the place of its report, and the error of a kernel that
// fails until the batch names it (a line: 5,000 failed kernels peak at
// 22.6 MB).
const minBatchKernelCost = 1536

// minOne writes the minimal BTF of kernel i (k) into the batch, and the
// relocations that fail on it (failedRelos) into the report. Its errors
// name the kernel once.
func (c *cli) minOne(batch *atomicfile.Batch, report *relocReport, i int, k batchKernel, out string, objs []core.Object, f btfMinFlags, opts builder.Options) error {
	s, err := c.openOneWith(c.ctx, k.path, c.targetOptions(objs))
	if err != nil {
		return err // it names k.path
	}
	defer s.Close()
	named := func(err error) error { return targetErr(k.path, s, fmt.Errorf("%s: %w", k.path, err)) }
	t := core.NewTarget(s)
	b, err := core.TypesFor(c.ctx, t, objs)
	if err != nil {
		return named(err)
	}
	data, err := marshalBTF(b, out, f.write, opts)
	if err != nil {
		return named(err)
	}
	failed, err := c.failedRelos(t, objs, f.objs)
	if err != nil {
		return named(err)
	}
	if err := report.add(i, k.out, failed); err != nil {
		return named(err)
	}
	if err := batch.Add(out, data, 0o644); err != nil {
		report.drop(i) // a kernel without output has no lines
		return named(err)
	}
	return nil
}

// batchOutputs names the output of each kernel in dir. Two kernels with
// one output, or an output that is an input, are refused.
func batchOutputs(kernels []batchKernel, dir string) ([]string, error) {
	paths := make([]string, len(kernels))
	for i, k := range kernels {
		paths[i] = k.path
	}
	return outputsIn(dir, paths, func(i int, p string) (string, error) {
		if p == "-" {
			return "", usagef("batch mode reads kernels from files, not stdin")
		}
		return kernels[i].out, nil
	})
}
