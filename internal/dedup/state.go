package dedup

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// Map values (libbpf's BTF_UNPROCESSED_ID, BTF_IN_PROGRESS_ID); a value
// up to maxID is a type id.
const (
	unprocessed = ^uint32(0)
	inProgress  = ^uint32(1)
	maxID       = 0x7fffffff
)

// state is one deduplication: the appended types (own ids first..), on an
// optional Base, and libbpf's btf_dedup fields.
type state struct {
	base *Base // nil for standalone BTF
	// odd: an own type refers to a VAR, DATASEC or DECL_TAG (checkTypes).
	odd atomic.Bool
	// faithful: the graphs reach two such types of one kind and name;
	// the struct pass compares every candidate in libbpf's order
	// (checkOdd, faithful.go).
	faithful bool
	// In faithful mode (faithful.go): what the types' graphs reach
	// (taint), and by own index the top signature of a filed struct,
	// union or typedef.
	twinOf      []uint32 // by id: the one twinned type reached, or manyTwins
	fwdIn       []uint8  // by id: 1 if the graph reaches a FWD
	ftop        []uint32
	pathScratch []uint32 // failsClean's
	// holdsOdd: an own type is a VAR, DATASEC or DECL_TAG (initTypes).
	holdsOdd atomic.Bool
	blast    uint32 // last base id, 0 without a base
	first    uint32 // first own id
	recs     records
	strs     strSpace

	m      []uint32  // canonical map of own types (index id-first)
	kt     kindTable // kinds, the own ones beside m (initTypes)
	hyp    []uint32  // hypothetical map of own types, canon id -> cand id + 1 (0: unprocessed)
	bs     *baseScratch
	hlist  []uint32 // keys of the hypothetical map, in insertion order
	adjust bool     // hypot_adjust_canon
	tab    *table
	refs   refTable  // the reference pass's canonical types
	sigs   sigMemo   // own types' signatures, computed on demand
	deep   deepSigs  // deep signatures, for long candidate lists (deep.go)
	full   fullSigs  // full signatures, beside them (full.go)
	exact  exactSigs // exact depths, beside them (exact.go)
	fails  failMemo  // pairs known to fail (failmemo.go)
	dix    deepIndex // candidates by deep signature (deepindex.go)
	// exactHook, if not nil, is called with each refinement done (tests).
	exactHook func(*exactRefiner)
	deepOn    bool // deep signatures filter the candidates
	// deepBudget is the failSteps that turn deepOn on: deepBudget, or 0
	// in tests.
	deepBudget uint64
	failBudget uint64 // likewise for fails.on: failBudget, or 0 in tests
	// failSteps counts the steps of the graph comparisons that failed.
	failSteps uint64
	// sameFailSteps counts those of the comparisons whose full
	// signatures were known and equal (sameFull, the last one's): past
	// deepBudget, exact depths filter such pairs too (deepDiffer).
	sameFailSteps uint64
	sameFull      bool
	ctx           context.Context
	ticks         uint32 // calls of stopped
	// words counts the record words the passes went through since the
	// context was last looked at (stoppedAt); wordsEnd is the offset
	// (records' words) where the last type stoppedAt was given ends.
	words    uint64
	wordsEnd uint32
	skips    uint64 // candidates the struct pass's filters skipped
	enums    enumIndex
	// eqStack and refStack are the explicit stacks of isEquiv and
	// refType, kept between calls.
	eqStack  []eqPair
	refStack stack[refFrame]
	err      error
	compat   Compat
	pipe     *pipeline // see Merger.Pipeline
	// graphsDone tells that FinishGraphs ran the passes over the first
	// refDone own types.
	graphsDone bool
	refDone    uint32

	workers int // see Options
	// specTypes counts the types appended from Specs (AddPrepared), as
	// opposed to Builders: it sizes the table (see run).
	specTypes uint32

	mMem, hypMem, kindsMem *mmap.Region // of m, hyp and kt.own
	taintMem, ftopMem      *mmap.Region // of twinOf and ftop
	fwdMem                 *mmap.Region // of fwdIn
}

// kindTable holds the kind of every type id, a byte each: the passes ask
// for kinds of the types they meet all the time, and a kind read from the
// record goes through the offsets of the records first. The own kinds
// are written where the canonical map starts (initTypes).
type kindTable struct {
	base  []uint8 // ids 0..first-1
	own   []uint8 // ids first.., as far as the canonical map goes
	first uint32
}

// of returns the kind of type id, which is a base id or an own id whose
// kind is known.
func (k *kindTable) of(id uint32) btf.Kind {
	if id < k.first {
		return btf.Kind(k.base[id])
	}
	return k.ownKind(id - k.first)
}

// ownKind returns the kind of own index i.
func (k *kindTable) ownKind(i uint32) btf.Kind { return btf.Kind(k.own[i]) }

// initTypes starts the canonical map of own indexes lo..hi-1 and records
// their kinds: VARs and DATASECs are never deduplicated, and map to
// themselves; the other types are unprocessed.
func (d *state) initTypes(lo, hi uint32) {
	odd := false
	for i := lo; i < hi; i++ {
		k := kindOf(d.recs.head(i))
		d.kt.own[i] = uint8(k)
		d.m[i] = unprocessed
		if oddKind(k) {
			odd = true
			if k != btf.KindDeclTag {
				d.m[i] = d.first + i
			}
		}
	}
	if odd {
		d.holdsOdd.Store(true)
	}
}

// checkTypes notes in d.odd whether own indexes lo..hi-1, whose kinds
// (and those of every type they refer to) are known, refer to a VAR,
// DATASEC or DECL_TAG (refersOdd), on d.workers. Where no type of those
// kinds exists, in the Base or among the own types, none can be referred
// to, and the records are not read: their kinds are (libbpf has no such
// check, and reading every record's references cost 4% of a
// deduplication without them: BENCH.md, "Preparing and scanning").
func (d *state) checkTypes(lo, hi uint32) {
	if (d.base == nil || !d.base.holdsOdd) && !d.holdsOdd.Load() {
		return
	}
	workpool.Chunks(d.workers, hi-lo, typeChunk, func(_ int, clo, chi uint32) {
		for i := lo + clo; i < lo+chi && !d.odd.Load(); i++ {
			if refersOdd(d.recs.rec(i), &d.kt) {
				d.odd.Store(true)
			}
		}
	})
}

// typeChunk is how many types a worker initialises or checks at a time.
const typeChunk = 1 << 14

// freeScratch gives back what only the passes of run use: the
// hypothetical map, the tables and the signatures. They are in mappings
// (see makeMapped), so their memory is free for the output at once.
func (d *state) freeScratch() {
	d.freeEnums()
	d.freeGraphs()
	d.tab.free()
	d.refs.free()
	d.sigs.free()
}

// freeEnums gives back the enum index, which only the first pass uses.
func (d *state) freeEnums() {
	d.enums.defs.free()
	d.enums.decls.free()
}

// freeGraphs gives back the hypothetical map and the top signatures,
// which only the struct pass uses (but for libbpf 1.1's typedefs, whose
// signatures the reference pass computes again).
func (d *state) freeGraphs() {
	d.clearHypot()
	d.failOff()
	d.dix.free()
	d.deep.free()
	d.full.free()
	d.exact.free()
	mmap.Free(&d.hypMem, &d.taintMem, &d.ftopMem, &d.fwdMem)
	d.hyp, d.twinOf, d.fwdIn, d.ftop = nil, nil, nil, nil
}

// free gives back all of d's mappings; d must not be used afterwards. It
// may be called more than once.
func (d *state) free() {
	d.freeScratch()
	mmap.Free(&d.mMem, &d.kindsMem)
	d.m, d.kt.own = nil, nil
	d.strs.Own.Free()
	d.recs.mem.free()
}

// voidRec is the record of void: wHead zero words, laid out by the
// compiler (make would be an init function, which every kmeta command
// runs: cmd/kmeta/BENCH.md).
var voidRec = record{wHead - 1: 0}

func newState(base *Base) *state {
	d := &state{base: base, first: 1, workers: 1, deepBudget: deepBudget, failBudget: failBudget}
	var bs *baseStrings
	var under *table
	d.kt = kindTable{base: []uint8{0}, first: 1} // void
	if base != nil {
		d.blast, d.first, bs, under = base.last, base.last+1, &base.strs, base.table
		d.kt = base.kindTable()
	}
	d.strs = newStrSpace(bs, 0)
	d.recs.off.push(0)
	d.tab = newTable(under, 0)
	return d
}

func (d *state) n() uint32 { return d.recs.len() }

func (d *state) rec(id uint32) record {
	switch {
	case id == 0:
		return voidRec
	case id <= d.blast:
		return d.base.rec(id)
	}
	return d.ownRec(id - d.first)
}

// ownRec returns the record of own index i, expanded if it was compacted.
func (d *state) ownRec(i uint32) record {
	r := d.recs.rec(i)
	if isCompact(r) {
		return d.expand(r)
	}
	return r
}

// kind returns the kind of a base type or of an own type initTypes has
// covered.
func (d *state) kind(id uint32) btf.Kind { return d.kt.of(id) }

func (d *state) get(id uint32) uint32 {
	if id <= d.blast {
		return d.bs.get(id)
	}
	return d.m[id-d.first]
}

func (d *state) set(id, v uint32) {
	if id <= d.blast {
		d.bs.set(id, v)
		return
	}
	d.m[id-d.first] = v
}

func (d *state) hypot(id uint32) uint32 {
	if id <= d.blast {
		return d.bs.hypot(id)
	}
	return d.hyp[id-d.first] - 1 // 0 - 1 == unprocessed
}

func (d *state) setHypot(id, v uint32) {
	if id <= d.blast {
		d.bs.setHypot(id, v)
	} else {
		d.hyp[id-d.first] = v + 1
	}
}

// release returns the base scratch to its pool, clean.
func (d *state) release() {
	if d.bs == nil {
		return
	}
	d.clearHypot()
	d.bs.reset()
	if d.base != nil {
		d.base.pool.Put(d.bs)
	}
	d.bs = nil
}

func (d *state) mapped(id uint32) bool { return d.get(id) <= maxID }

// resolve follows the canonical map to its end (resolve_type_id).
func (d *state) resolve(id uint32) uint32 {
	for {
		v := d.get(id)
		if v > maxID || v == id {
			return id
		}
		id = v
	}
}

// resolveFwd resolves a FWD to the struct or union it was mapped to, if
// any (resolve_fwd_id).
func (d *state) resolveFwd(id uint32) uint32 {
	if d.kind(id) != btf.KindForward {
		return id
	}
	if r := d.resolve(id); d.kind(r) != btf.KindForward {
		return r
	}
	return id
}

// stopEvery is how many calls of stopped look at the context once: a
// call costs a few nanoseconds, a look at a cancelable context a lock.
const stopEvery = 1 << 10

// stopped reports whether the deduplication's context is done, failing
// with its error; it looks every stopEvery calls. The passes call it for
// every type and every graph comparison step, so that a cancel stops even
// an input that makes the comparisons cubic (issue 37) within
// milliseconds.
func (d *state) stopped() bool {
	if d.ticks++; d.ticks%stopEvery != 0 {
		return false
	}
	return d.canceled()
}

// stoppedAt is stopped for the passes' loops over own index i. A pass's
// work on a type grows with its members, values or parameters, so it also
// looks at the context once the records passed since the last look hold
// stopEvery words per look: a hundred enums of 65,535 values take as
// long as millions of small types.
//
// The words are read off the records' offsets: those from the end of the
// type last given to the end of type i, so that the types a pass skips
// by kind are counted too (more looks, never fewer), and a pass that
// starts again below counts from type i. One offset a type, not a
// record: the three passes called stoppedAt 2.7 million times for the
// ninth campaign's copies-self-300000, 6.6% of its instructions when
// each sliced a record (BENCH.md).
func (d *state) stoppedAt(i uint32) bool {
	end := d.recs.off.at(i + 1)
	if end < d.wordsEnd {
		d.wordsEnd = d.recs.off.at(i)
	}
	d.words += uint64(end - d.wordsEnd)
	d.wordsEnd = end
	if d.words >= 16*stopEvery {
		d.words = 0
		return d.canceled()
	}
	return d.stopped()
}

// canceled reports whether the context is done, and records its cause.
func (d *state) canceled() bool {
	if d.ctx == nil || d.ctx.Err() == nil {
		return false
	}
	d.fail(fmt.Errorf("dedup: %w", context.Cause(d.ctx)))
	return true
}

func (d *state) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// run performs libbpf's passes, in its order.
func (d *state) run() error {
	n := d.n()
	if d.graphsDone {
		return d.runAfterGraphs(n)
	}
	from := uint32(0) // where the struct pass starts
	d.deepBudget = min(d.deepBudget, max(uint64(n), deepBudgetFloor))
	if d.pipe != nil {
		// A pipeline (Merger.Pipeline) did what comes before the
		// struct pass, and the struct pass up to from.
		var err error
		if from, err = d.pipeFinish(); err != nil {
			return err
		}
		goto structs
	}
	d.sigs.size = min(n+1, passSigWindow)
	d.bs = d.scratch()
	// m and the kinds are written all over; populated at once, they
	// take no page fault (mmap.Region.Populate).
	d.m = makePopulated[uint32](int(n), &d.mMem)
	d.kt.own = makePopulated[uint8](int(n), &d.kindsMem)
	// hyp holds values plus one, so that it starts as zeros: the pages of
	// the ids never compared as canonical types are never touched.
	d.hyp = makeMapped[uint32](int(n), &d.hypMem)
	workpool.Chunks(d.workers, n, typeChunk, func(_ int, lo, hi uint32) { d.initTypes(lo, hi) })
	d.checkTypes(0, n)
	d.checkOdd()
	// Only canonical types are filed. A DWARF encoder's vmlinux keeps a
	// few percent of its types, so a table sized for all of them would
	// be mostly empty. Split BTF from a kernel's build holds only what its
	// base lacks, and keeps most of it, so a table sized for a small
	// fraction would grow several times, moving its slots into new
	// mappings each time. keepHint serves both (BENCH.md); the table
	// still grows as needed. Reference types have a table of their own
	// (refTable), sized the same way.
	d.newTables(n)
	if d.base != nil {
		d.enums = newEnumIndex(&d.base.enums)
	} else {
		d.enums = newEnumIndex(nil)
	}
	// The passes skip, by their kind, the types they leave alone.
	for i := range n {
		if d.stoppedAt(i) {
			return d.err
		}
		if isPrimKind(d.kt.ownKind(i)) {
			d.primType(d.first + i)
		}
	}
	// Each pass's scratch goes before the next, whose table grows to the
	// largest thing a deduplication holds.
structs:
	d.freeEnums()
	if !d.faithful {
		d.failOn()
	}
	for i := from; i < n; i++ {
		if !isGraphKind(d.kt.ownKind(i)) {
			continue
		}
		if d.stoppedAt(i) {
			return d.err
		}
		d.sigs.moveTo(i)
		d.structType(d.first + i)
		if d.err != nil {
			return d.err
		}
	}
	d.freeGraphs()
	d.resolveFwds()
	return d.refPass(0, n)
}

// refPass runs the reference pass over own indexes lo..n-1.
func (d *state) refPass(lo, n uint32) error {
	// Only a base's typedefs, filed under their struct-pass key, make
	// the reference pass compute signatures (baseRef), and the pass
	// meets typedefs only with libbpf 1.1's rules (isRefPassKind); the
	// window's moves, which clear it, would cost a vmlinux's encoding
	// hundreds of megabytes of writes for nothing, and the window, which
	// the struct pass fills since it computes the top signatures
	// (topSig), would stay beside the reference table.
	sigs := d.base != nil && d.compat == CompatLibbpf11
	if !sigs {
		d.sigs.free()
	}
	if d.refs.slots == nil { // not made by newTables (a pipeline)
		d.refs.reserve(d.keepHint(d.refKinds(n), n))
	}
	for i := lo; i < n; i++ {
		if d.stoppedAt(i) {
			return d.err
		}
		if d.m[i] <= maxID {
			continue // decided by an earlier pass, or reached from a type before it
		}
		if sigs {
			d.sigs.moveTo(i)
		}
		d.refType(d.first + i)
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

// newTables makes the table of canonical types and that of the reference
// types (refTable) for n own types, sized by keepHint; the main table's
// index for at most the chains its keys make (keySketch, counted by
// sketchKeys, which it runs).
func (d *state) newTables(n uint32) {
	refs := d.refKinds(n)
	hint := d.keepHint(n-refs, n)
	keys, enums := d.sketchKeys(2*hint*slotSize > sketchFrom)
	d.tab = newTableChains(d.tab.under, hint, keys.chainHint(enums, hint))
	d.refs.reserve(d.refHint(refs, n))
}

// refHint is keepHint for the reference table. Specs without a base are
// a kernel's or a program's BTF, deduplicated when it was made: all of
// their reference types are expected to be kept. A table sized for half
// of them would grow once it filled, holding both copies while it moves.
func (d *state) refHint(refs, n uint32) int {
	if d.base == nil && n > 0 {
		spec := uint64(refs) * uint64(d.specTypes) / uint64(n)
		return int(spec + (uint64(refs)-spec)/32)
	}
	return d.keepHint(refs, n)
}

// refKinds counts the own types of indexes below n that only the
// reference pass deduplicates.
func (d *state) refKinds(n uint32) uint32 {
	refs := uint32(0)
	for _, k := range d.kt.own[:n] {
		if isRefPassKind(btf.Kind(k), d.compat) {
			refs++
		}
	}
	return refs
}

// keepHint guesses how many of m of the n own types are kept: half of
// those that came from Specs, a 32nd of the others.
func (d *state) keepHint(m, n uint32) int {
	if n == 0 {
		return 0
	}
	spec := uint64(m) * uint64(d.specTypes) / uint64(n)
	return int(spec/2 + (uint64(m)-spec)/32)
}

// isRefPassKind reports whether only the reference pass deduplicates
// types of kind k (refType), by the rules of c.
func isRefPassKind(k btf.Kind, c Compat) bool {
	switch k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPointer,
		btf.KindFunc, btf.KindTypeTag, btf.KindDeclTag, btf.KindArray, btf.KindFuncProto:
		return true
	case btf.KindTypedef:
		return c == CompatLibbpf11
	}
	return false
}

// isPrimKind reports whether the primitive pass deduplicates types of
// kind k (primType).
func isPrimKind(k btf.Kind) bool {
	switch k {
	case btf.KindInt, btf.KindForward, btf.KindFloat, btf.KindEnum, btf.KindEnum64:
		return true
	}
	return false
}

// isGraphKind reports whether the struct pass may deduplicate types of
// kind k (structType).
func isGraphKind(k btf.Kind) bool {
	return k == btf.KindStruct || k == btf.KindUnion || k == btf.KindTypedef
}

// primType deduplicates an INT, ENUM, ENUM64, FWD or FLOAT
// (btf_dedup_prim_type).
func (d *state) primType(id uint32) {
	r := d.rec(id)
	newID := id
	var h uint64
	switch kindOf(r) {
	case btf.KindInt, btf.KindForward, btf.KindFloat:
		h = hashAll(r)
		for c := range d.tab.candidates(hashKey(h)) {
			if equalAll(r, d.rec(c)) {
				newID = c
				break
			}
		}
	case btf.KindEnum, btf.KindEnum64:
		h = hashEnum(r)
		newID = d.enumType(id, r)
	default:
		return
	}
	d.set(id, newID)
	if newID == id {
		d.addCanonical(h, id, r)
	}
}

func isAnyEnum(r record) bool {
	k := kindOf(r)
	return k == btf.KindEnum || k == btf.KindEnum64
}

func isEnumFwd(r record) bool { return isAnyEnum(r) && vlenOf(r) == 0 }

// compatEnum is btf_compat_enum: equal, or one is a forward declaration
// (vlen 0) of an enum of the same name, whatever the size or kind.
func compatEnum(a, b record) bool {
	if !isEnumFwd(a) && !isEnumFwd(b) {
		return equalAll(a, b)
	}
	return a[wName] == b[wName] && isAnyEnum(a) && isAnyEnum(b)
}

// fwdKind is the kind a FWD declares.
func fwdKind(r record) btf.Kind {
	if kflagOf(r) {
		return btf.KindUnion
	}
	return btf.KindStruct
}

func (d *state) errorf(format string, args ...any) {
	d.fail(fmt.Errorf("dedup: "+format, args...))
}
