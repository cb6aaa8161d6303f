package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/internal/atomicfile"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/faults"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

type btfDedupFlags struct {
	base  string
	out   string
	dir   string
	each  bool
	jobs  int
	whole bool
	write btfWriteFlags
}

func (c *cli) btfDedupCmd() *cobra.Command {
	var f btfDedupFlags
	cmd := &cobra.Command{
		Use:   "dedup FILE... -o OUT | dedup --each -B BASE -d OUTDIR FILE...",
		Short: "Deduplicate BTF as libbpf's btf__dedup does (merge several, split on a base)",
		Long: `Deduplicate BTF, with the result libbpf's btf__dedup gives: the same types, in
the same order, with the same ids and names. One FILE is deduplicated on its
own; several FILEs are appended in the order given (as btf__add_btf does) and
deduplicated once. With -B BASE, the FILEs are split BTF on BASE and OUT is
split BTF on it: types equal to base types become references to them.

With --each, every FILE is deduplicated on its own against BASE and written
to OUTDIR/<file name>; the base is prepared once and every CPU is used (-j
sets the number of workers). A progress line appears when stderr is a
terminal. A FILE that fails (not BTF, cut short, not split on BASE) is
named on stderr, one line each, once the batch is done; every other
FILE's output is written, as a loop calling libbpf's btf__dedup on each
module writes it, and the exit status is 2. With --all-or-nothing the first
failure ends the batch and OUTDIR is left as it was; an interrupted batch
(SIGINT, SIGTERM) leaves it so too. "-" reads stdin (one FILE) or writes
to stdout.

OUT is in BASE's byte order, or without -B the host's, as libbpf writes
the BTF its inputs are appended to; --endian chooses another.

As libbpf's, an output past the kernel's limits is written, and the kernel
refuses it: more types than it loads (1,048,575), or more than 2^24 bytes
of strings (libbpf writes up to 2^31-1).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.each {
				return c.btfDedupEach(args, f)
			}
			return c.btfDedup(args, f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` (vmlinux's) for split BTF")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "output `FILE` (\"-\" for stdout)")
	cmd.Flags().StringVarP(&f.dir, "dir", "d", "", "output `DIR` for --each")
	cmd.Flags().BoolVar(&f.each, "each", false, "deduplicate each FILE separately against -B BASE into -d DIR")
	cmd.Flags().IntVarP(&f.jobs, "jobs", "j", 0, "workers for --each (default: every CPU)")
	allOrNothingFlag(cmd, &f.whole)
	f.write.register(cmd)
	cmd.Flags().Lookup("endian").Usage = "byte order of the output: `big` or little (default: BASE's, else the host's, as libbpf)"
	return cmd
}

// mergeBase is the base of a merge and the Merger on it, made by load on
// a goroutine of its own while the command checks its inputs. spec and
// merger wait for them.
type mergeBase struct {
	opened   chan struct{} // closed once baseSpec or openErr is set
	isOpened bool          // opened is closed; load's goroutine's own
	ready    chan struct{} // closed once m or baseErr is set
	baseSpec *btf.Spec     // nil without a base
	openErr  error
	m        *dedup.Merger
	baseErr  error
}

func newMergeBase() *mergeBase {
	return &mergeBase{opened: make(chan struct{}), ready: make(chan struct{})}
}

// load opens the base at path (none if path is ""), prepares it for
// deduplication and makes the Merger on it, reading under ctx, and closes
// ready. On a goroutine of its own it runs under fc (see package faults):
// a fault while the base is read (its file truncated under the mapping,
// which guardFaults covers on the main goroutine only) becomes the base's
// error rather than killing the process, set before the waiters wake.
func (mb *mergeBase) load(ctx context.Context, c *cli, path string, fc *faults.Carrier) {
	defer close(mb.ready)
	if fc == nil {
		mb.open(ctx, c, path)
		return
	}
	if fc.Run(func() { mb.open(ctx, c, path) }) {
		return
	}
	err := fmt.Errorf("base %s: the file changed while it was read (truncated by another process?)", path)
	if !mb.isOpened {
		mb.openErr = err
		mb.setOpened()
	}
	mb.m, mb.baseErr = nil, err
}

// setOpened closes opened.
func (mb *mergeBase) setOpened() {
	mb.isOpened = true
	close(mb.opened)
}

// open is load's work.
func (mb *mergeBase) open(ctx context.Context, c *cli, path string) {
	workers := dedup.Options{Workers: runtime.GOMAXPROCS(0)}
	var base *dedup.Base
	if path != "" {
		mb.baseSpec, mb.openErr = c.openBaseWith(ctx, path)
		if mb.openErr != nil {
			mb.baseErr = mb.openErr
			mb.setOpened()
			return
		}
		mb.setOpened()
		// The command reads none of the base's records through its
		// Spec but for the Base's: a big-endian base's go back to the
		// file once the Base has read them (internal/dedup's basePages).
		btfmem.LastReader(mb.baseSpec)
		if base, mb.baseErr = dedup.NewBase(mb.baseSpec, workers); mb.baseErr != nil {
			mb.baseErr = fmt.Errorf("base %s: %w", path, mb.baseErr)
			return
		}
	} else {
		mb.setOpened()
	}
	mb.m = dedup.New(base, workers)
}

// spec waits for the base's Spec to be open and returns it (nil without
// a base).
func (mb *mergeBase) spec() (*btf.Spec, error) {
	<-mb.opened
	return mb.baseSpec, mb.openErr
}

// merger waits for the Merger to be made and returns it.
func (mb *mergeBase) merger() (*dedup.Merger, error) {
	<-mb.ready
	return mb.m, mb.baseErr
}

// close closes the base's Spec, once load has returned and nothing uses
// it any more.
func (mb *mergeBase) close() {
	if mb.baseSpec != nil {
		mb.baseSpec.Close()
	}
}

// openBase opens the base BTF, if any, and prepares it with prepare, for
// deduplication (btf dedup) or for encoding modules on it (btf encode).
func openBase[B any](c *cli, path string, prepare func(*btf.Spec) (B, error)) (*btf.Spec, B, error) {
	var none B
	if path == "" {
		return nil, none, nil
	}
	s, err := c.openBase(path)
	if err != nil {
		return nil, none, err
	}
	b, err := prepare(s)
	if err != nil {
		s.Close()
		return nil, none, fmt.Errorf("base %s: %w", path, err)
	}
	return s, b, nil
}

// prepareDedupBase is openBase's prepare for btf dedup: the command reads
// none of the base's records but through the Base (btfmem.LastReader).
func prepareDedupBase(s *btf.Spec) (*dedup.Base, error) {
	btfmem.LastReader(s)
	return dedup.NewBase(s, dedup.Options{Workers: runtime.GOMAXPROCS(0)})
}

func (c *cli) btfDedup(paths []string, f btfDedupFlags) error {
	if f.dir != "" || f.jobs != 0 || f.whole {
		return usagef("-d, -j and --all-or-nothing go with --each")
	}
	again := releaseStartup
	dropStartupPages()
	opts, err := f.write.options()
	if err != nil {
		return err
	}
	inputs := append([]string{f.base}, paths...)
	if stdinTwice(inputs...) {
		return usagef("standard input (\"-\") can be only one of the FILEs and -B BASE")
	}
	if f.out == "" {
		return checkOutput(f.out)
	}
	// The base is opened and prepared for deduplication (dedup.NewBase,
	// on every core) on a goroutine of its own while the output and the
	// inputs are checked here: a bad input is still reported before
	// anything is appended, and the checks of thousands of inputs (an
	// open and a read of each) take their time beside the base's, not
	// before it. The producers below parse their inputs once the base's
	// Spec is open, and prepare them once the Merger is made; the inputs
	// are appended in the order given, on this goroutine. The
	// deduplication itself computes its signatures on every core too.
	//
	// Every return waits for that goroutine and then closes the base: a
	// base still read from standard input (a terminal, still to be typed)
	// stops reading when ctx is cancelled.
	//
	// Without a base there is nothing to overlap: the Merger is made here,
	// on this goroutine, whose stack start-up has grown already. A new
	// goroutine's stack starts at 2 KB and grew twice in dedup.New, and
	// each growth reads the stack maps of every frame on it: 1.2 MB of
	// the binary's tables that the release above had just given back
	// (cmd/kmeta/BENCH.md, "Start-up: init functions and stack growth").
	ctx, cancel := context.WithCancel(c.ctx)
	mb := newMergeBase()
	var wg sync.WaitGroup
	if f.base == "" {
		mb.load(ctx, c, "", nil)
	} else {
		fc := faults.New()
		wg.Go(func() { mb.load(ctx, c, f.base, &fc) })
	}
	defer func() {
		cancel()
		wg.Wait()
		mb.close()
	}()
	defer c.releasePreread()
	ins, err := c.checkDedupInputs(f, paths, inputs)
	if err != nil {
		return err
	}
	var bufs *rawBufs
	if len(paths) > 1 {
		bufs = new(rawBufs)
	}
	// What each input needs of the base (its names hashed and looked up,
	// its records checked and copied) is done by the producers
	// (Merger.Prepare); only what depends on the inputs before it is done
	// here, in order (Merger.AddPrepared), and this goroutine prepares
	// inputs too while the next one is not ready (workpool.Ordered). Each
	// Prepared waiting holds buffers the size of its input: 16 keep the
	// appending fed.
	pool := workpool.Options{Ahead: 16, Progress: c.progress("reading", len(paths))}
	err = workpool.Ordered(c.ctx, len(paths), pool,
		func(i int) (*dedup.Prepared, error) {
			baseSpec, err := mb.spec()
			if err != nil {
				return nil, err
			}
			var p *dedup.Prepared
			err = c.openReused(bufs, paths[i], baseSpec, func(s *btf.Spec) error {
				m, err := mb.merger()
				if err != nil {
					return err
				}
				// Prepare copies what it needs: the Spec is closed
				// (an inflated input's memory given back as it is
				// read) and its buffer reused once it returns.
				if p, err = m.PrepareClose(c.ctx, s); err != nil {
					return fmt.Errorf("%s: %w", paths[i], err)
				}
				return nil
			})
			return p, err
		},
		func(i int, p *dedup.Prepared) error {
			// A value was produced: the Merger is made.
			if err := mb.m.AddPrepared(p); err != nil {
				return fmt.Errorf("%s: %w", paths[i], err)
			}
			return nil
		}, nil)
	if err != nil {
		return err
	}
	m, err := mb.merger()
	if err != nil {
		return err
	}
	if again != nil {
		again()
	}
	opts.ByteOrder = dedupOrder(opts.ByteOrder, mb.baseSpec)
	return c.writeDeduped(f.out, m, opts, f.write, ins)
}

// dedupOrder returns the byte order of dedup's output: --endian's, else
// the base's, else the host's (nil), as libbpf's btf__dedup writes the
// new BTF that its peer appends the inputs to: a split one takes its
// base's order (btf_new_empty in libbpf's btf.c), a standalone one the
// host's, whatever the inputs' order.
func dedupOrder(flag binary.ByteOrder, base *btf.Spec) binary.ByteOrder {
	if flag == nil && base != nil {
		return base.ByteOrder()
	}
	return flag
}

// checkDedupInputs checks the output and the inputs of a merge (see
// checkOutput and checkBTFInputs), and returns the inputs as it looked at
// them (nil if the output is standard output), for writeDeduped. With a
// base each input is opened once for both checks, not stat'ed first: a
// merge of the Debian 6.1 modules has 1,121 of them. (Standard input is
// then held twice, briefly, as it is read; without a base it is read
// once.) The caller releases what checkBTFInputs read (releasePreread).
func (c *cli) checkDedupInputs(f btfDedupFlags, paths, inputs []string) (*inputFiles, error) {
	if f.base == "" || f.out == "-" {
		ins, err := checkOutputFiles(f.out, inputs...)
		if err != nil || f.base == "" {
			return ins, err
		}
		return ins, c.checkBTFInputs(paths, false)
	}
	ins := newInputPaths(inputs...)
	if f.base != "-" {
		if fi, err := os.Stat(f.base); err == nil {
			ins.add(f.base, fi)
		}
	}
	if err := checkOutputIn(f.out, ins); err != nil {
		return nil, err
	}
	if err := c.checkBTFInputFiles(paths, false, ins); err != nil {
		return nil, err
	}
	// Again, now that the inputs' FileInfos are known: the output may be
	// one of them by another name.
	return ins, ins.check(f.out)
}

// writeDeduped deduplicates what m holds and writes it, raw BTF or
// wrapped in ELF if asked, to out, which checkOutputFiles checked against
// the inputs (ins, nil for standard output). Raw BTF goes to out as it is
// made (Merger.DedupTo), not held whole.
func (c *cli) writeDeduped(out string, m *dedup.Merger, opts builder.Options, w btfWriteFlags, ins *inputFiles) error {
	fill := func(w io.Writer) error { return m.DedupTo(c.ctx, w, opts) }
	if w.elf || strings.HasSuffix(out, ".o") {
		data, err := m.DedupContext(c.ctx, opts)
		if err != nil {
			return err
		}
		if data, err = builder.ELF(data); err != nil {
			return err
		}
		fill = func(w io.Writer) error { _, err := w.Write(data); return err }
	}
	if out == "-" {
		return fill(c.out())
	}
	return c.writeOutputFileWith(out, fill, ins)
}

func (c *cli) btfDedupEach(paths []string, f btfDedupFlags) error {
	if err := eachFlags(f.base, f.dir, f.out, f.jobs); err != nil {
		return err
	}
	dropStartupPages() // as btfDedup
	opts, err := f.write.options()
	if err != nil {
		return err
	}
	outs, err := eachOutputs(paths, f.dir)
	if err != nil {
		return err
	}
	// An input that is not BTF fails alone, before the base is
	// prepared; when every input does, there is nothing to prepare it for.
	r := newBatchRun(len(paths), "modules", f.whole)
	for i, p := range paths {
		if err := r.fail(i, c.checkBTFInputs([]string{p}, true)); err != nil {
			return err
		}
	}
	if r.all() {
		return r.finish(c, "btf dedup")
	}
	// Every module's deduplication is garbage once written, and its
	// heap is small beside the Base's mappings: collecting at half the
	// live heap's growth keeps the heap near what one module needs
	// (cmd/kmeta/BENCH.md, "btf dedup --each").
	defer setGC(50)()
	baseSpec, base, err := openBase(c, f.base, prepareDedupBase)
	if err != nil {
		return err
	}
	defer baseSpec.Close()
	opts.ByteOrder = dedupOrder(opts.ByteOrder, baseSpec)
	trim := baseTrim{spec: baseSpec, base: base}
	var batch atomicfile.Batch // one sync for all outputs, renamed at the end
	pool := workpool.Options{Workers: f.jobs, Progress: c.progress("dedup", len(paths))}
	err = r.run(c, pool, &batch, func(i int) error {
		return trim.run(func() error {
			return c.dedupOne(&batch, paths[i], outs[i], baseSpec, base, opts, f.write)
		})
	})
	if err != nil {
		return err
	}
	return r.finish(c, "btf dedup")
}

// baseTrim gives back, between the modules of btf dedup --each, what
// their deduplications brought back of the base, once it adds up to
// trimBudget: each reads the base records its types meet, which the Base
// copies out of the file's mapping and keeps (dedup.Base.Held), and the
// base strings its names are compared with, whose file pages stay
// resident. Over the 1,121 Debian 6.1 modules 2.7 of the vmlinux's 4 MB
// came back, where one module alone brings back at most 1.8 (xfs). So
// the loop holds no more of the base than its largest module does, plus
// the budget. The copies are dropped (dedup.Base.Trim) while no module
// is being deduplicated: each holds mu for reading. The file pages are
// counted from the system (fileResident: the binary's pages too, which
// stop growing early; 0 where it cannot tell, and then nothing is given
// back) and given back with btfmem.Evict, which leaves a base held in
// memory (standard input, inflated) alone.
type baseTrim struct {
	mu     sync.RWMutex
	spec   *btf.Spec
	base   *dedup.Base
	fileMu sync.Mutex
	from   int64 // resident file bytes after the last release
}

// trimBudget is how much of the base the loop lets come back, as
// copies and as file pages each, between releases. Each release costs a
// system call and, for the next modules, the faults of what they read
// again.
const trimBudget = 512 << 10

// run runs one module's deduplication, one, then trims.
func (t *baseTrim) run(one func() error) error {
	t.mu.RLock()
	err := one()
	t.mu.RUnlock()
	t.after()
	return err
}

// after is called once a module is done.
func (t *baseTrim) after() {
	if t.base.Held() > trimBudget {
		t.mu.Lock()
		if t.base.Held() > trimBudget {
			t.base.Trim()
		}
		t.mu.Unlock()
	}
	if !t.fileMu.TryLock() {
		return // another worker looks
	}
	defer t.fileMu.Unlock()
	r := fileResident()
	switch {
	case r == 0:
	case t.from == 0 || r < t.from:
		t.from = r
	case r-t.from > trimBudget:
		btfmem.Evict(t.spec)
		t.from = fileResident()
	}
}

// eachFlags checks the flags every --each mode needs: -B BASE, -d OUTDIR,
// no -o, and -j not negative.
func eachFlags(base, dir, out string, jobs int) error {
	switch {
	case base == "":
		return usagef("--each needs -B BASE")
	case dir == "":
		return usagef("--each needs -d OUTDIR")
	case out != "":
		return usagef("--each writes into -d OUTDIR, not -o")
	case jobs < 0:
		return usagef("-j %d: want a positive number of workers", jobs)
	}
	return nil
}

// eachOutputs returns OUTDIR/<file name> for every path, refusing two
// inputs of the same name and an output that is one of the inputs (as
// checkOutput does, with each input looked at once).
func eachOutputs(paths []string, dir string) ([]string, error) {
	return outputsIn(dir, paths, func(_ int, p string) (string, error) {
		if p == "-" {
			return "", usagef("--each reads files, not stdin")
		}
		return filepath.Base(p), nil
	})
}

// outputsIn returns dir/name(i, paths[i]) for every input of a batch
// mode, refusing two inputs that name one output and an output that is
// one of the inputs (as checkOutput does, with each input looked at once).
func outputsIn(dir string, paths []string, name func(i int, path string) (string, error)) ([]string, error) {
	if err := checkOutputDir(dir); err != nil {
		return nil, err
	}
	inputs := newInputFiles(paths...)
	seen := make(map[string]string, len(paths))
	outs := make([]string, len(paths))
	for i, p := range paths {
		n, err := name(i, p)
		if err != nil {
			return nil, err
		}
		if q, ok := seen[n]; ok {
			return nil, fmt.Errorf("%s and %s would both be written to %s", q, p, filepath.Join(dir, n))
		}
		seen[n] = p
		outs[i] = filepath.Join(dir, n)
		if err := inputs.check(outs[i]); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

func (c *cli) dedupOne(batch *atomicfile.Batch, path, out string, baseSpec *btf.Spec, base *dedup.Base, opts builder.Options, w btfWriteFlags) error {
	s, err := c.openOne(path, baseSpec)
	if err != nil {
		return err
	}
	defer s.Close()
	m := dedup.New(base, dedup.Options{})
	if err := m.AddSpec(s); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	data, err := m.DedupContext(c.ctx, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if w.elf {
		if data, err = builder.ELF(data); err != nil {
			return err
		}
	}
	return batch.Add(out, data, 0o644)
}
