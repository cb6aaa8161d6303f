package dwarf2btf

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/btfids"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/faults"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Options control Encode. The zero value encodes as the input kernel's
// own build ran pahole (CompatKernel), with one worker per CPU.
type Options struct {
	// Base is vmlinux's BTF when encoding a module: the output is split
	// BTF on it (pahole's --btf_base).
	Base *btf.Spec
	// Jobs is the number of workers; 0 means runtime.GOMAXPROCS(0). The
	// output does not depend on it.
	Jobs int
	// NoFloats encodes floating-point types as INT, as pahole 1.24 does
	// without --btf_gen_floats (CompatPahole124 only).
	NoFloats bool
	// SkipVars leaves out per-CPU variables (--skip_encoding_btf_vars).
	SkipVars bool
	// Progress, if set, is called after each compile unit is merged, with
	// the number of units merged and the total, from one goroutine.
	Progress func(done, total int)
	// Encoded, if set, is called by Encode on the caller's goroutine once
	// every unit is encoded and before the deduplication starts: the
	// encoder's own heap (its workers' buffers) is garbage then, and the
	// deduplication is about to allocate its maps. A program that wants
	// that memory back before the peak calls debug.FreeOSMemory here, as
	// kmeta's CLI does, which lowers a vmlinux's peak (BENCH.md). With one
	// job it is also called once the last unit is encoded, before that
	// unit is merged (a single large unit's peak). The package itself
	// never changes process-wide settings.
	Encoded func()
	// MaxSize bounds the size of a file that EncodeFile
	// reads, and of what it decompresses to; 0 means 1 GiB
	// (internal/input's default).
	MaxSize int64
	// DedupBase, if not nil, is Base prepared once (by NewBase) for the
	// deduplication of every module encoded on it; nil prepares Base in
	// each call.
	DedupBase *Base

	// Compat chooses whose output Encode reproduces; the zero value,
	// CompatKernel, decides from the input's kernel release.
	Compat Compat
	// Features is the feature set of CompatPahole130 and CompatLinux7 (pahole's
	// --btf_features); zero means DefaultFeatures. There NoFloats and
	// SkipVars are ignored: the float and var features decide. It must
	// hold type_tag, whose absence this package does not encode.
	Features Features
	// KeepRust encodes the compile units written in Rust too, as pahole
	// does without --lang_exclude=rust; by default they are left out, as
	// every kernel's build asks (CompatPahole124 always leaves them out).
	KeepRust bool
	// NoDedup stops Encode after the encoding: the types as pahole adds
	// them before its final deduplication, every unit's in unit order
	// (kmeta btf encode --no-dedup), and for CompatLinux7 before
	// resolve_btfids's step too. Encoded is not called then.
	NoDedup bool
	// AsLinked reads the kfunc sets of .BTF_ids as the file holds them,
	// as pahole itself does. By default a file that holds .BTF (a -dbg
	// vmlinux or module, linked and resolved) has its sets read as its
	// build saw them, before resolve_btfids sorted them by id: what the
	// kernel's build wrote. The two differ only on such files.
	AsLinked bool

	// mapped tells that the data is a read-only file mapping, whose pages
	// can be given back once read (EncodeFile).
	mapped bool
	// compat and features are Compat and Features resolved for the input.
	compat   Compat
	features Features
}

// jobs is Jobs resolved: 0 means GOMAXPROCS.
func (opts *Options) jobs() int {
	if opts.Jobs <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return opts.Jobs
}

// DWARF language codes the encoder leaves out (--lang_exclude=rust).
const langRust = 0x1c

// encodeNoDedup is Encode for Options.NoDedup.
func encodeNoDedup(ctx context.Context, data []byte, opts Options, out builder.Options) ([]byte, error) {
	b, _, err := encode(ctx, data, opts, nil)
	if err != nil {
		return nil, err
	}
	return b.Marshal(out)
}

// Encode turns the DWARF of the ELF image data (a vmlinux or a .ko,
// uncompressed) into the BTF its kernel's build makes of it (see Options.Compat):
// it encodes every unit's types, deduplicates as pahole's final btf__dedup
// does (btf/dedup), and for CompatLinux7 finishes as resolve_btfids --btf does
// (btf/btfids). It returns raw BTF written as out says: the same bytes as
// the tool, whatever opts.Jobs. A nil out.ByteOrder means the host's, as
// everywhere in kmeta; pahole writes BTF in its input's byte order
// (btf_encoder__new sets it from e_ident[EI_DATA]), which ByteOrder(data)
// returns. The encoded types are written straight into the deduplication,
// unit by unit (each by the worker that encoded it, in a dedup.Unit that
// the merge appends with dedup.Merger.AddUnit), so they are written and
// held once, in the Merger, and a vmlinux's millions of types pass although
// BTF allows about one million: only the deduplicated output must fit.
// With opts.NoDedup it stops after the encoding. data must not change
// until Encode returns; nothing returned refers to it.
func Encode(ctx context.Context, data []byte, opts Options, out builder.Options) ([]byte, error) {
	if opts.NoDedup {
		return encodeNoDedup(ctx, data, opts, out)
	}
	base := opts.DedupBase
	if base == nil && opts.Base != nil {
		var err error
		if base, err = NewBase(opts.Base, opts); err != nil {
			return nil, err
		}
	}
	// pahole 1.24 as Debian 12 ships it deduplicates with libbpf 1.1.
	m := dedup.New(base.engine(), dedup.Options{Workers: opts.jobs(), Compat: dedup.CompatLibbpf11})
	// The merge, on the caller's goroutine, deduplicates each unit as it
	// goes, beside the workers encoding the next ones, and compacts the
	// duplicates it decides. With one job nothing overlaps, but the
	// compacted records still save time and peak memory (BENCH.md).
	if err := m.Pipeline(); err != nil {
		return nil, err
	}
	_, info, err := encode(ctx, data, opts, m)
	if err != nil {
		return nil, err
	}
	if opts.Encoded != nil {
		opts.Encoded()
	}
	if info.compat != CompatLinux7 {
		raw, err := m.DedupContext(ctx, out) // raw, as it is, for no option
		if err != nil {
			return nil, pkgerr.Errorf("dwarf2btf: %w", err)
		}
		return raw, nil
	}
	if out.ByteOrder != nil && !isNative(out.ByteOrder) {
		return nil, fmt.Errorf("dwarf2btf: linux-7 encoding in the byte order opposite to the host's is not supported")
	}
	raw, err := m.DedupContext(ctx, builder.Options{})
	if err != nil {
		return nil, pkgerr.Errorf("dwarf2btf: %w", err)
	}
	var kf []btfids.Kfunc
	if info.kfuncs != nil {
		kf = info.kfuncs.pairs
	}
	if raw, err = finalize(raw, opts.Base, base, kf); err != nil {
		return nil, fmt.Errorf("dwarf2btf: %w", err)
	}
	if out.Layout {
		return nil, fmt.Errorf("dwarf2btf: linux-7 encoding with a layout section is not supported")
	}
	return raw, nil
}

func isNative(order binary.ByteOrder) bool {
	return order.Uint16([]byte{1, 2}) == binary.NativeEndian.Uint16([]byte{1, 2})
}

// encode encodes data into a Builder, or, if direct is not nil, straight
// into the deduplication: each unit's types written by the worker that
// encoded it (emitter.addType), and appended to direct in unit order with
// the records the merge adds. It also returns what Encode needs of the
// input.
func encode(ctx context.Context, data []byte, opts Options, direct *dedup.Merger) (*builder.Builder, *encodeInfo, error) {
	info := &encodeInfo{}
	o, err := openObject(data)
	if err != nil {
		return nil, nil, err
	}
	defer o.free()
	if err := opts.resolve(o); err != nil {
		return nil, nil, err
	}
	// The phases before the workers start (the ELF's sections and, in a
	// module, their relocations; the unit headers; the symbols) take up
	// to a few hundred milliseconds each on a vmlinux: the context is
	// looked at between them.
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	d := o.dwarfData(&opts)
	units, err := d.unitOffsets()
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	b, err := builder.NewSplit(opts.Base)
	if err != nil {
		return nil, nil, err
	}
	b.AllowManyTypes()
	e := &run{d: d, opts: &opts, units: units, little: o.order.Uint16([]byte{1, 0}) == 1, direct: direct}
	// Merged units' DWARF is not read again: give its pages back as the
	// merge goes, in the file's mapping or in a relocated copy, so that
	// the resident memory follows the units being encoded, not the file.
	e.infoMapped = o.releasable(".debug_info", opts.mapped)
	e.abbrevMapped = o.releasable(".debug_abbrev", opts.mapped)
	// Only a file mapping: an anonymous copy released would read back as
	// zeros, should a unit read lists out of order.
	e.locMapped = d.loclists != nil && opts.mapped && o.debugMapped(".debug_loclists")
	if opts.mapped {
		// The whole file's pages go at the end.
		defer mmap.Release(data)
		// Reading the symbols, the unit headers and, in a module, the
		// relocations brought in pages that are not read again (the
		// headers' with the kernel's fault-around: most of a vmlinux's
		// .debug_info); what is read in place later faults back in.
		mmap.Release(data)
	}
	m := newMerger(b)
	if direct != nil {
		m = newDirectMerger(direct, d.str)
		m.beside = opts.jobs() > 1
	}
	// The symbols are only needed to emit a unit's types: the caller's
	// goroutine reads them while the workers load the first units.
	symbols := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		syms, err := o.symbols(&opts, info)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		e.syms = syms
		if opts.compat >= CompatPahole130 {
			m.like130, m.elf, m.features = true, syms.elf, opts.features
		}
		if opts.mapped && o.symtab != nil {
			// Their pages are read again only for some names.
			mmap.Release(o.symtab.syms)
			mmap.Release(o.symtab.strs)
		}
		return nil
	}
	if err := e.encode(ctx, m, symbols); err != nil {
		return nil, nil, err
	}
	info.order, info.compat = o.order, opts.compat
	return b, info, nil
}

// dwarfData returns o's debug sections as the encoder chosen by opts
// reads them: pahole 1.30's consistent_func also reads the parameters'
// location lists.
func (o *object) dwarfData(opts *Options) *dwarfData {
	d := &dwarfData{order: o.order, info: o.debug[".debug_info"], abbrev: o.debug[".debug_abbrev"],
		str: o.debug[".debug_str"], lineStr: o.debug[".debug_line_str"],
		strOffsets: o.debug[".debug_str_offsets"], addr: o.debug[".debug_addr"]}
	if opts.compat >= CompatPahole130 && opts.features&FeatureConsistentFunc != 0 {
		d.loclists, d.loc = o.debug[".debug_loclists"], o.debug[".debug_loc"]
		d.regParams = registerParams(o.machine)
	}
	return d
}

// symbols reads what the encoding needs of o's symbol table for the
// encoder opts chose (newSymbols130 or newSymbols), and the kfuncs of
// .BTF_ids into info when it needs them.
func (o *object) symbols(opts *Options, info *encodeInfo) (*symbols, error) {
	if opts.compat < CompatPahole130 {
		return newSymbols(o, !opts.SkipVars)
	}
	var tag *kfuncInfo
	if opts.features&FeatureDeclTagKfuncs != 0 || opts.compat == CompatLinux7 {
		info.kfuncs = o.kfuncPairs(opts.Base, opts.AsLinked)
		if opts.features&FeatureDeclTagKfuncs != 0 {
			tag = info.kfuncs
		}
	}
	return newSymbols130(o, tag), nil
}

// encodeInfo is what Encode needs of the input besides the types: its byte
// order, the encoder chosen, and the kfuncs of its .BTF_ids.
type encodeInfo struct {
	order  binary.ByteOrder
	compat Compat
	kfuncs *kfuncInfo
}

// resolve decides opts.compat and opts.features for the object.
func (opts *Options) resolve(o *object) error {
	opts.compat = opts.Compat
	if opts.compat == CompatKernel {
		opts.compat = CompatFor(o.release())
	}
	switch opts.compat {
	case CompatPahole124:
		opts.features = FeatureVar | FeatureFloat | FeatureDeclTag | FeatureTypeTag | FeatureEnum64
		if opts.NoFloats {
			opts.features &^= FeatureFloat
		}
		if opts.SkipVars {
			opts.features &^= FeatureVar
		}
		return nil
	case CompatPahole130, CompatLinux7:
	default:
		return fmt.Errorf("dwarf2btf: unknown encoder %v", opts.compat)
	}
	opts.features = opts.Features
	if opts.features == 0 {
		opts.features = DefaultFeatures
	}
	if opts.features&FeatureTypeTag == 0 {
		return fmt.Errorf("dwarf2btf: encoding without the type_tag feature is not supported")
	}
	opts.NoFloats = opts.features&FeatureFloat == 0
	opts.SkipVars = opts.features&FeatureVar == 0
	return nil
}

// run is one encoding's shared, read-only state.
type run struct {
	d    *dwarfData
	syms *symbols // set before symsReady is closed, if it is not nil
	// symsReady, if not nil, is closed once syms is set; the workers'
	// context is done if it never will be.
	symsReady chan struct{}
	opts      *Options
	units     []uint32 // the offsets of the units (dwarfData.unitOffsets)
	little    bool
	// direct, if not nil, is the deduplication that the workers write
	// the units' types for (emitter.addType).
	direct *dedup.Merger
	// infoMapped tells that d.info's pages can be given back behind the
	// merge (object.releasable); released is how much of it was.
	infoMapped bool
	released   uint32
	// abbrevMapped tells the same of .debug_abbrev, whose tables come in
	// the units' order in a kernel's objects (one per unit, in link
	// order); abbrevReleased is how much of it was given back.
	abbrevMapped   bool
	abbrevReleased uint64
	// locMapped tells the same of .debug_loclists, whose lists come in
	// the units' order too; locReleased is how much of it was given back.
	locMapped   bool
	locReleased uint64
}

// releaseLoc gives back the pages of .debug_loclists before end, the
// furthest a merged unit read, in steps of at least releaseStep bytes.
// A later unit that reads before it only faults pages back in.
func (e *run) releaseLoc(end uint64) {
	if !e.locMapped || end < e.locReleased+releaseStep || end > uint64(len(e.d.loclists)) {
		return
	}
	mmap.Release(e.d.loclists[e.locReleased:end])
	e.locReleased = end
}

// releaseThrough gives back, once unit i is merged, the pages of
// .debug_info up to its end, in steps of at least releaseStep bytes, and
// those of .debug_abbrev before the next unit's table, when they are a
// file's mapping. A table shared with a later unit, out of that order,
// only faults back in.
func (e *run) releaseThrough(i int) {
	end := uint32(len(e.d.info))
	if i+1 < len(e.units) {
		end = e.units[i+1]
	}
	if !e.infoMapped || end < e.released+releaseStep && end < uint32(len(e.d.info)) {
		return
	}
	mmap.Release(e.d.info[e.released:end])
	e.released = end
	if !e.abbrevMapped || i+1 >= len(e.units) {
		return
	}
	next, err := e.d.unitAt(uint64(e.units[i+1]))
	if a := next.abbrevOff; err == nil && a > e.abbrevReleased && a <= uint64(len(e.d.abbrev)) {
		mmap.Release(e.d.abbrev[e.abbrevReleased:a])
		e.abbrevReleased = a
	}
}

const releaseStep = 4 << 20

// encode runs the workers and merges their units in order. Workers run at
// most window units ahead of the merge, which bounds memory. The caller's
// goroutine runs symbols (which sets e.syms) first, beside the workers:
// they load units, and wait for it before emitting them.
//
// This is not internal/workpool.Ordered, which serves the other ordered
// streams: each worker here keeps a loader, an abbreviation cache and a
// NameCache from one unit to the next and hands its NameCache to the
// merge at the end, the units' buffers go back to the workers through a
// free list, and the calling goroutine computes the symbols instead of
// producing units.
func (e *run) encode(ctx context.Context, m *merger, symbols func() error) error {
	jobs := e.opts.jobs()
	n := len(e.units)
	jobs = max(1, min(jobs, n))
	if jobs == 1 {
		if err := symbols(); err != nil {
			return err
		}
		return e.encodeInline(ctx, m)
	}
	if e.direct != nil {
		m.takeCache(e.direct.NewNameCache(e.d.str))
	}
	e.symsReady = make(chan struct{})
	window := 4 * jobs
	// Unit i's result goes through slot i%window: a worker takes unit i
	// only with a token, and the merge gives one back only after it
	// received unit i-window, so no two units in flight share a slot. A
	// channel per unit would cost a million-unit input over 100 MB.
	results := make([]chan *encoded, window)
	for i := range results {
		results[i] = make(chan *encoded, 1)
	}
	tokens := make(chan struct{}, window)
	free := make(chan *encoded, window+jobs)
	ctx, cancel := context.WithCancel(ctx)
	var next atomic.Int64
	var wg sync.WaitGroup
	// Each worker hands its scratch over when it is done (see below).
	done := make(chan *recScratch, jobs)
	// A worker reads the mapped input: a fault there (the file truncated
	// by another process) ends that worker and the run, and is raised on
	// this goroutine, where the caller's recover sees it (internal/faults).
	fc := faults.New()
	for range jobs {
		wg.Go(func() {
			var sc *recScratch
			if !fc.Run(func() { sc = e.worker(ctx, &next, tokens, free, results) }) {
				cancel()
			}
			done <- sc
		})
	}
	defer func() {
		cancel()
		wg.Wait()
		fc.Raise()
	}()
	if err := symbols(); err != nil {
		return err
	}
	close(e.symsReady)
	for i := range n {
		var u *encoded
		select {
		case u = <-results[i%window]:
		case <-ctx.Done():
			fc.Raise()
			return ctx.Err()
		}
		if u.err != nil {
			return pkgerr.Errorf("dwarf2btf: compile unit at %#x: %w", e.units[i], u.err)
		}
		if err := m.add(u); err != nil {
			return pkgerr.Errorf("dwarf2btf: compile unit at %#x: %w", e.units[i], err)
		}
		e.releaseThrough(i)
		e.releaseLoc(u.locMax)
		<-tokens
		select {
		case free <- u:
		default:
		}
		if e.opts.Progress != nil {
			e.opts.Progress(i+1, n)
		}
	}
	// The merge writes pahole 1.30's saved functions last, tens of
	// thousands of parameter names: with the NameCache of a worker,
	// which has learned most of them, it looks few of them up.
	select {
	case sc := <-done:
		if sc == nil { // that worker faulted
			cancel()
			wg.Wait()
			fc.Raise()
		}
		m.takeCache(sc.names)
	case <-ctx.Done():
		fc.Raise()
		return ctx.Err()
	}
	return m.finish()
}

// encodeInline reads, encodes and merges every unit on the calling
// goroutine, one after the other, as pahole -j1 does: Options.Jobs 1 asks
// for no goroutine besides the caller's.
func (e *run) encodeInline(ctx context.Context, m *merger) error {
	l := &loader{cu: &cuData{}}
	cache := map[abbrevKey]*abbrevTable{}
	sc := e.scratch()
	// One goroutine writes both the units and the merge's own records:
	// one NameCache serves both.
	m.takeCache(sc.names)
	u := &encoded{}
	n := len(e.units)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		u.reset()
		if err := e.unit(ctx, e.units[i], l, cache, sc, u); err != nil {
			return pkgerr.Errorf("dwarf2btf: compile unit at %#x: %w", e.units[i], err)
		}
		if i == n-1 && e.direct != nil && e.opts.Encoded != nil {
			// Every unit is encoded: the loader's tables are garbage
			// (a type table and DIE index as large as the unit), and
			// merging the last unit grows the deduplication's records
			// by its size. Handing them back first keeps the two from
			// adding up, which on a single large unit is the peak.
			l, cache = nil, nil
			e.opts.Encoded()
		}
		if err := m.add(u); err != nil {
			return pkgerr.Errorf("dwarf2btf: compile unit at %#x: %w", e.units[i], err)
		}
		e.releaseThrough(i)
		e.releaseLoc(u.locMax)
		if e.opts.Progress != nil {
			e.opts.Progress(i+1, n)
		}
	}
	return m.finish()
}

// worker encodes units until there are none left, or ctx is done, and
// returns its scratch.
func (e *run) worker(ctx context.Context, next *atomic.Int64, tokens chan struct{}, free chan *encoded, results []chan *encoded) *recScratch {
	cu := &cuData{}
	l := &loader{cu: cu}
	cache := map[abbrevKey]*abbrevTable{}
	sc := e.scratch()
	for {
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return sc
		}
		i := int(next.Add(1) - 1)
		if i >= len(e.units) {
			<-tokens
			return sc
		}
		var out *encoded
		select {
		case out = <-free:
			out.reset()
		default:
			out = &encoded{}
		}
		out.err = e.unit(ctx, e.units[i], l, cache, sc, out)
		results[i%len(results)] <- out
	}
}

// scratch returns a goroutine's scratch for emitter.addType.
func (e *run) scratch() *recScratch {
	sc := &recScratch{}
	if e.direct != nil {
		sc.names = e.direct.NewNameCache(e.d.str)
	}
	return sc
}

func (u *encoded) reset() {
	*u = encoded{types: u.types[:0], elems: u.elems[:0], tags: u.tags[:0], funcs: u.funcs[:0], vars: u.vars[:0], sigs: u.sigs[:0], unit: u.unit}
}

// unit loads, recodes and emits the unit at off, and writes its types for the
// deduplication if the encoding goes straight into it.
func (e *run) unit(ctx context.Context, off uint32, l *loader, cache map[abbrevKey]*abbrevTable, sc *recScratch, out *encoded) error {
	if len(cache) > 8 {
		clear(cache)
	}
	u, err := e.d.unitAt(uint64(off))
	if err != nil {
		return err
	}
	r, err := e.d.newUnitReader(u, cache)
	if err != nil {
		return err
	}
	cu := l.cu
	cu.reset(u)
	l.r = r
	defer func() { out.locMax = r.locMax }()
	l.mems, l.anns, l.ps = l.mems[:0], l.anns[:0], l.ps[:0]
	if err := l.load(); err != nil {
		return err
	}
	if cu.language == langRust && (!e.opts.KeepRust || e.opts.compat < CompatPahole130) || cu.types.len() == 1 && len(cu.funcs) == 0 && len(cu.vars) == 0 {
		out.skipped = true
		return nil
	}
	if err := cu.recode(e.little); err != nil {
		return err
	}
	if e.symsReady != nil {
		select {
		case <-e.symsReady:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	em := &emitter{cu: cu, obj: e.syms, opts: e.opts, out: out}
	if e.direct != nil {
		if out.unit == nil {
			out.unit = e.direct.NewUnit()
		}
		out.unit.SetCache(sc.names)
		out.unit.Reset(1)
		em.unit, em.sc = out.unit, sc
	}
	return em.emit()
}

// finalize makes resolve_btfids --btf's steps (btfids.Finalize) on raw,
// deduplicating on the engine's prepared base that the encoding used, so
// that a base shared across modules is prepared once for both.
func finalize(raw []byte, base *btf.Spec, prepared *Base, kf []btfids.Kfunc) ([]byte, error) {
	edited, err := btfids.Edit(raw, btfids.Options{Base: base, Kfuncs: kf})
	if err != nil {
		return nil, err
	}
	spec, err := btf.Parse(edited, btf.Options{Base: base})
	if err != nil {
		return nil, fmt.Errorf("btfids: %w", err)
	}
	m := dedup.New(prepared.engine(), dedup.Options{}) // libbpf 1.8's rules, as resolve_btfids links
	if err := m.AddSpec(spec); err != nil {
		return nil, fmt.Errorf("btfids: %w", err)
	}
	out, err := m.Dedup(builder.Options{})
	if err != nil {
		return nil, fmt.Errorf("btfids: %w", err)
	}
	return btfids.SortByName(out, base)
}
