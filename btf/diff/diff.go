package diff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/faults"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// Change is one difference between two BTFs: a type added, removed, or
// changed, named by its kind and name.
type Change struct {
	Kind   string `json:"kind"`   // bpftool's spelling in lower case: "struct", "func", "enum64", ...
	Name   string `json:"name"`   // the type's name
	Change string `json:"change"` // "added", "removed" or "changed"
	// Details is what changed, for "changed" (empty otherwise), as
	// Compare returns it. Walk leaves it nil and hands the details over
	// through AllDetails, made as they are taken: a struct that gained
	// 65,535 members has three times as many.
	Details []Detail `json:"details"`
	// Reached is set, when Options.Types names the types to compare, for
	// a change to a type it does not name, compared because a named type
	// reaches it.
	Reached bool `json:"reached"`

	// more makes the details of a change that Walk hands over; nil
	// otherwise. With alias, their strings may be those of buffers that
	// the next details reuse: for a writer that is done with each
	// detail before it takes the next (Stream).
	more func(alias bool, yield func(Detail) bool)
}

// AllDetails yields the details of c in their order: those of Details,
// or, for a change that Walk hands over, those it makes one at a time as
// they are taken, comparing the type again (nothing once the function
// given to Walk has returned). If making them fails (the context was
// cancelled), they stop, and Walk returns the error once that function
// returns.
func (c Change) AllDetails() iter.Seq[Detail] {
	return c.details(false)
}

// details is AllDetails, whose strings may be reused with alias (see
// Change.more).
func (c Change) details(alias bool) iter.Seq[Detail] {
	if c.more != nil {
		return func(yield func(Detail) bool) { c.more(alias, yield) }
	}
	return slices.Values(c.Details)
}

// Changes of Change.Change.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Options select what Compare compares.
type Options struct {
	// Types, if not empty, limits the comparison to the types of these
	// names (of any kind) and the types they reach, in either BTF. A name
	// that neither BTF has makes Compare fail with an error wrapping
	// btf.ErrNotFound. The changes to the named types come first; those
	// to the types they reach follow, marked Reached.
	Types []string

	// Scope is the part of each Spec compared: btf.ScopeAll (the zero
	// value) for every type, btf.ScopeOwn for the split part only, as for
	// two modules on their vmlinux.
	Scope btf.Scope

	// Workers is how many goroutines Compare may use: 0 or 1 compares on
	// the caller's goroutine alone; 2 or more indexes the two sides at
	// once and compares a big BTF's groups on up to Workers goroutines (at
	// most 8).
	Workers int
}

// group is the types of one kind and name in one BTF: 8 bytes, its name
// read from its first type's record when needed, so that a BTF of a
// million small named types costs little beyond itself.
type group struct {
	id      btf.TypeID // the first type of the group
	several bool       // the group has other types, in side.more
	kind    btf.Kind
	flags   uint8 // dead, matched, changed
	tag     uint8 // 8 bits of the hash of kind and name: most slots of other groups are passed without reading a name
}

// Flags of a group.
const (
	dead    = 1 << iota // left out by Options.Types
	matched             // a group of the other side has the same key
	changed             // matched, and the layouts differ
)

func (g *group) is(flag uint8) bool { return g.flags&flag != 0 }

// side is one BTF being compared: its named types grouped by kind and
// name, found through a hash of the two.
type side struct {
	spec   *btf.Spec
	seed   maphash.Seed
	groups []group
	slots  []int32 // open addressing, linear probing: a group's index + 1; 0 is free
	// more holds the other types of the groups of several, each as its
	// group's first id << 32 | its own id, sorted: 8 bytes a type, where
	// a map from first id to a slice took some 60 (issue 37: 900,000
	// types, 200,000 names of two each, put btf diff over its bound).
	more  []uint64
	namer *cdump.Namer
	names map[btf.TypeID]string // C names computed so far
	// spelling is the named type whose signature is being spelled, which
	// the Namer's errors name (namerError); 0 before any.
	spelling btf.TypeID
	// namesBytes is the bytes of the names cached.
	namesBytes int
	// ctx is checked every pollEvery signatures spelled, a signature
	// counting one and one more for each spelledBytes of it (a group
	// of a million types of one name is one step of the walks over
	// groups, a type of 65,535 members one signature).
	ctx     context.Context
	spelled int
	// sig is the walker that spells the signatures of structs, kept
	// for the next.
	sig *factWalker
	// same is what the old side's comparisons of anonymous types
	// with the new side's found (sameMemo).
	same map[idPair]bool
	// layouts is what the old side's comparisons of structs of long
	// signatures with the new side's found.
	layouts layouts
	// anons is what the old side's comparisons of structs found of
	// the members of their named anonymous members (sharedAnon).
	anons map[anonKey]anonDetails
}

func hashKey(seed maphash.Seed, k btf.Kind, name string) uint64 {
	return maphash.String(seed, name) ^ uint64(k)*0x9e3779b97f4a7c15
}

// name returns the name of g's types. It aliases the Spec's string
// section, which stays mapped while Compare runs.
func (sd *side) name(g *group) string {
	t, err := sd.spec.TypeByID(g.id)
	if err != nil {
		return ""
	}
	b := t.NameBytes()
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ids returns the ids of g's types.
func (sd *side) ids(g *group) []btf.TypeID {
	ids := []btf.TypeID{g.id}
	if g.several {
		key := uint64(g.id) << 32
		i, _ := slices.BinarySearch(sd.more, key)
		for ; i < len(sd.more) && sd.more[i]&^(1<<32-1) == key; i++ {
			ids = append(ids, btf.TypeID(sd.more[i]))
		}
	}
	return ids
}

// slot returns the slot of the group of kind k and name: the one that
// holds it, or the free one where it goes.
func (sd *side) slot(k btf.Kind, name string) *int32 {
	// The hash's top 32 bits scaled to the table, whose size need not be
	// a power of two.
	n := uint64(len(sd.slots))
	h := hashKey(sd.seed, k, name)
	for i := (h >> 32) * n >> 32; ; i++ {
		if i == n {
			i = 0
		}
		gi := sd.slots[i]
		if gi == 0 {
			return &sd.slots[i]
		}
		if g := &sd.groups[gi-1]; g.kind == k && g.tag == uint8(h) && sd.name(g) == name {
			return &sd.slots[i]
		}
	}
}

// find returns the group of kind k and name, or nil.
func (sd *side) find(k btf.Kind, name string) *group {
	if gi := *sd.slot(k, name); gi > 0 {
		return &sd.groups[gi-1]
	}
	return nil
}

// typeName returns the C name of id, from the cache.
func (sd *side) typeName(id btf.TypeID) (string, error) {
	if id > sd.spec.LastID() {
		return "", fmt.Errorf("diff: type [%d]: %w", id, btf.ErrNotFound)
	}
	if n, ok := sd.names[id]; ok {
		return n, nil
	}
	if err := sd.newNamer(); err != nil {
		return "", err
	}
	n, err := sd.namer.TypeName(id)
	if err != nil {
		return "", sd.namerError(err)
	}
	if len(sd.names) >= maxNames || sd.namesBytes+len(n) > maxNameBytes {
		clear(sd.names)
		sd.namesBytes = 0
	}
	if len(n) <= maxNameBytes {
		sd.names[id] = n
		sd.namesBytes += len(n)
	}
	return n, nil
}

// maxNames bounds the C names a side caches: the types that members
// and typedefs of a kernel refer to fit, a million pointers of their own
// do not.
const maxNames = 1 << 14

// maxNameBytes bounds the bytes of the C names a side caches: 64
// typedefs, each of a pointer of its own to one prototype of 65,535
// parameters, changed, cached 64 names of 650 KB on each side (133 MB
// against the 22 MB of 2 S + 20 MB; a name longer than this is spelled
// for each use, as the output then holds it for each).
const maxNameBytes = 1 << 20

// decl appends the C declaration of name with type id to dst.
func (sd *side) decl(dst []byte, id btf.TypeID, name string) ([]byte, error) {
	if err := sd.newNamer(); err != nil {
		return dst, err
	}
	out, err := sd.namer.AppendDecl(dst, id, name)
	if err != nil {
		return dst, sd.namerError(err)
	}
	return out, nil
}

// namerError is the error for a C name the Namer refused (a declaration
// nesting too deep, say): it names the type whose signature needed it, a
// named type the user can look up, where the Namer's own error names the
// anonymous type it was asked to spell.
func (sd *side) namerError(err error) error {
	if t, terr := sd.spec.TypeByID(sd.spelling); sd.spelling != 0 && terr == nil {
		return refuse(t, err)
	}
	return pkgerr.Errorf("diff: %w", err)
}

// newNamer creates the side's Namer on first use.
func (sd *side) newNamer() error {
	if sd.namer != nil {
		return nil
	}
	var err error
	if sd.namer, err = cdump.NewNamer(sd.spec); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

// Compare returns the differences from old to new, sorted by kind (as
// spelled in Change.Kind) and name; with Options.Types, those of the named
// types first, then those of the types they reach (Change.Reached).
// Types are matched by kind and name, never by id; types that share a kind
// and a name (several "struct fib_table" in one kernel) are compared as a
// group, and reported as changed when the layouts of the group differ.
// Anonymous types are compared where named types use them (members of an
// anonymous struct are members of the struct that holds it).
//
// ctx is checked between groups. Both Specs must stay open while Compare
// runs. Walk hands the same changes over one at a time, without holding
// them.
func Compare(ctx context.Context, old, new *btf.Spec, opts Options) ([]Change, error) {
	var out []Change
	err := Walk(ctx, old, new, opts, func(c Change) error {
		if c.Change == Changed {
			var in interner
			for d := range c.AllDetails() {
				c.Details = append(c.Details, in.detail(d))
			}
		}
		c.more = nil
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Walk calls fn with each change that Compare returns, in the same order,
// without holding them: it compares every group first, keeping a mark per
// group and an index per change, then sorts the changes' indexes and
// makes each Change as fn takes it. Its details are not in
// Change.Details: Change.AllDetails yields them while fn runs, one at a
// time, from those kept from the first pass (a few MB) or comparing the
// changed group's layouts again. An error from fn stops the walk and is
// returned as it is; every other error comes before the first call of
// fn, but one of making the details that fn takes, which Walk returns
// once fn returns.
func Walk(ctx context.Context, old, new *btf.Spec, opts Options, fn func(Change) error) error {
	if old == nil || new == nil {
		return errors.New("diff: nil Spec")
	}
	// With workers, the two sides are indexed at the same time: each reads
	// its own Spec. (Two different tasks side by side, not a pool of
	// jobs: internal/workpool would only hide which is which.)
	seed := maphash.MakeSeed()
	var b *side
	var errB error
	done := make(chan struct{})
	// The new side may be read from a mapping: a fault there is raised
	// here, after the join, where the caller's recover sees it
	// (internal/faults).
	fc := faults.New()
	index := func() {
		defer close(done)
		fc.Run(func() { b, errB = newSide(ctx, new, opts, seed) })
	}
	if opts.Workers >= 2 {
		go index()
	} else {
		index()
	}
	a, err := newSide(ctx, old, opts, seed)
	<-done
	fc.Raise()
	if err == nil {
		err = errB
	}
	if err != nil {
		return err
	}
	if len(opts.Types) > 0 {
		if err := restrict(a, b, opts.Types); err != nil {
			return err
		}
	}
	a.slots = nil // only b's index finds groups from here on
	wa, wb, kept, err := compareAll(ctx, a, b, opts.Workers)
	if err != nil {
		return err
	}
	w := &walker{a: wa, b: wb, kept: kept, list: listChanges(a, b)}
	w.sort()
	if len(opts.Types) == 0 {
		return w.emit(ctx, nil, false, fn)
	}
	named := make(map[string]bool, len(opts.Types))
	for _, n := range opts.Types {
		named[n] = true
	}
	if err := w.emit(ctx, named, false, fn); err != nil {
		return err
	}
	return w.emit(ctx, named, true, fn)
}

// compareAll compares the groups of a with those of b on up to workers
// goroutines, when there are enough groups to pay for them: a's groups
// are cut into one contiguous share per worker, and each worker has
// Namers and name caches of its own (a Namer is not safe for concurrent
// use); the Specs and the indexes are only read. A group of b is marked
// matched by the one worker whose group of a has its key. It marks the
// groups, and returns the first worker's sides and the details of the
// first changed groups found, by a's group index, as far as keptBytes
// allows, or the error of the first share that failed.
func compareAll(ctx context.Context, a, b *side, workers int) (wa, wb *side, kept map[int32][]Detail, err error) {
	n := len(a.groups)
	workers = max(1, min(workers, n/4096, 8, 1+extraWorkerBytes/workerBytes))
	share := (n + workers - 1) / workers
	kepts := make([]map[int32][]Detail, workers)
	errs := make([]error, workers)
	as, bs := make([]*side, workers), make([]*side, workers)
	for w := range workers {
		as[w], bs[w] = a.worker(), b.worker()
	}
	workpool.Chunks(workers, n, share, func(w, lo, hi int) {
		kepts[lo/share], errs[lo/share] = compareRange(ctx, as[w], bs[w], lo, hi, keptBytes/workers)
	})
	// The first share's error is the one a single worker would have
	// stopped at: one error, not one per worker.
	for _, err := range errs {
		if err != nil {
			return nil, nil, nil, err
		}
	}
	kept = kepts[0]
	for _, m := range kepts[1:] {
		maps.Copy(kept, m)
	}
	return as[0], bs[0], kept, nil
}

// extraWorkerBytes bounds what the workers beyond the first may take, each
// about workerBytes: the C name caches of its two sides when full (a
// Namer holds nothing for each type) and its memo of the anonymous types
// compared (some 16 bytes a pair).
const (
	extraWorkerBytes = 8 << 20
	workerBytes      = 2*maxNames*64 + maxSameMemo*16
)

// keptBytes bounds what the details that the first pass keeps for the
// walk take (about 150 bytes each, as detailBytes counts them), so that
// the changed groups of two kernels are compared once, and a million
// changed types cost no more than a few MB. (A variable for the tests.)
var keptBytes = 4 << 20

// keptOne bounds what the details kept of one change take: the first pass
// holds them while it makes them, beside the two signatures, and a change
// of a kernel takes under 100 KB, one of a struct of 65,535 members added
// some 30 MB.
const keptOne = 256 << 10

// detailBytes is about what d takes in memory.
func detailBytes(d Detail) int {
	n := 128 + len(d.Member) + len(d.Enumerator) + len(d.Field)
	for _, v := range []any{d.Old, d.New} {
		if s, ok := v.(string); ok {
			n += len(s)
		}
	}
	return n
}

// worker returns a copy of sd for one worker: the same Spec, groups and
// index, its own Namer and name cache.
func (sd *side) worker() *side {
	w := *sd
	w.namer, w.sig, w.same, w.layouts, w.anons = nil, nil, nil, layouts{}, nil
	w.names, w.namesBytes = make(map[btf.TypeID]string), 0
	return &w
}

// compareRange compares a's groups lo to hi with b's and marks them,
// keeping the details of the changed ones while they take at most budget
// bytes.
func compareRange(ctx context.Context, a, b *side, lo, hi, budget int) (map[int32][]Detail, error) {
	kept := make(map[int32][]Detail)
	var cmpBuf [2][]byte
	for i := lo; i < hi; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ga := &a.groups[i]
		if ga.is(dead) {
			continue
		}
		gb := b.find(ga.kind, a.name(ga))
		if gb == nil || gb.is(dead) {
			continue // removed
		}
		ga.flags |= matched
		gb.flags |= matched
		big := false // cmpBuf does not hold the signatures: streamDiff compares them
		// A struct of a named anonymous member (sharedAnon) whose
		// members' details are known (hit) is compared without them.
		var (
			anon        anonKey
			ka, kb      int
			anonOK, hit bool
			sub         anonDetails
		)
		if !ga.several && !gb.several {
			// The common case, one type on each side: first the
			// structural comparison, then the signatures.
			same := sameTop(a, b, ga.id, gb.id)
			if err := a.pollSpelled(topWork(a, ga.id) / comparedPerSpelled); err != nil {
				return nil, err
			}
			if same {
				continue
			}
			// A pair of structs of the records of a pair compared
			// before compares as it did.
			p, key, keyed, found := a.layouts.find(a, b, ga.id, gb.id)
			if found && p.same {
				continue
			}
			if d, ok := kept[p.group]; found && ok {
				ga.flags |= changed
				kept[int32(i)] = d // shared: the details are only read
				continue
			}
			var err error
			if len(a.anons) > 0 {
				anon, ka, kb, anonOK = sharedAnonOf(a, b, ga.id, gb.id)
			}
			if anonOK {
				sub, hit = a.anons[anon]
				// Only details tell the member's facts apart:
				// with none, the struct may be the same.
				hit = hit && len(sub.removed)+len(sub.added) > 0
			}
			if hit {
				same = false
			} else if same, big, err = heldOrBig(a, b, ga.id, gb.id, &cmpBuf); err != nil {
				return nil, err
			}
			if long := big || len(cmpBuf[0])+len(cmpBuf[1]) >= rememberAbove; long && !hit {
				if keyed {
					a.layouts.remember(key, layoutPair{ia: ga.id, ib: gb.id, same: same, group: int32(i)})
				}
				// Only long ones are worth cutting (below).
				if !anonOK && !same {
					anon, ka, kb, anonOK = sharedAnonOf(a, b, ga.id, gb.id)
				}
			}
			if same {
				continue
			}
		}
		single := !ga.several && !gb.several
		var onlyA, onlyB []btf.TypeID
		if !single {
			var err error
			if onlyA, onlyB, err = matchGroups(a, b, a.ids(ga), b.ids(gb)); err != nil {
				return nil, err
			}
			if len(onlyA) == 0 && len(onlyB) == 0 {
				continue
			}
		}
		ga.flags |= changed
		// The details are kept while they fit in the budget and in
		// keptOne, made one at a time and interned (they alias
		// cmpBuf, which the next group reuses); those of a struct that
		// gained 65,535 members are made again, as they are written.
		// A group gives a detail, of at least 128 bytes as detailBytes
		// counts, for each type left over: those that cannot be kept
		// are not made twice.
		limit := min(budget, keptOne)
		if least := (1 + max(len(onlyA), len(onlyB))) * 128; limit < least {
			continue
		}
		var details []Detail
		var in interner
		used := 0
		keep := func(d Detail) bool {
			d = in.detail(d)
			used += detailBytes(d)
			details = append(details, d)
			return used <= limit
		}
		if hit {
			if _, err := sharedDetailsOf(a, b, ga.id, gb.id, ka, kb, sub, keep); err != nil {
				return nil, err
			}
		} else if single && big {
			if err := streamDiff(a, b, ga.id, gb.id, true, keep); err != nil {
				return nil, err
			}
		} else if single {
			signatureDiff(cmpBuf[0], cmpBuf[1], keep)
		} else if err := groupDetails(a, b, len(a.ids(ga)), len(b.ids(gb)), onlyA, onlyB, true, keep); err != nil {
			return nil, err
		}
		if used > limit {
			continue // made again as they are written
		}
		budget -= used
		kept[int32(i)] = details
		if anonOK && !hit {
			a.rememberAnon(anon, cutAnon(details, anon.name))
		}
	}
	return kept, nil
}

// listChanges returns the changes found as indexes: a group of a removed
// or changed as its index i, a group of b added as ^i.
func listChanges(a, b *side) []int32 {
	n := 0
	for i := range a.groups {
		if g := &a.groups[i]; !g.is(dead) && (!g.is(matched) || g.is(changed)) {
			n++
		}
	}
	for i := range b.groups {
		if g := &b.groups[i]; !g.is(dead) && !g.is(matched) {
			n++
		}
	}
	list := make([]int32, 0, n)
	for i := range a.groups {
		if g := &a.groups[i]; !g.is(dead) && (!g.is(matched) || g.is(changed)) {
			list = append(list, int32(i))
		}
	}
	for i := range b.groups {
		if g := &b.groups[i]; !g.is(dead) && !g.is(matched) {
			list = append(list, ^int32(i))
		}
	}
	return list
}

// walker makes the Changes of a sorted list of changes.
type walker struct {
	a, b *side
	kept map[int32][]Detail
	list []int32
}

// group returns the group of the change e, and its side.
func (w *walker) group(e int32) (*side, *group) {
	if e < 0 {
		return w.b, &w.b.groups[^e]
	}
	return w.a, &w.a.groups[e]
}

// sort sorts the list by kind (the rank of its name) and name: no two
// changes have the same, as a kind and name is one group on each side.
func (w *walker) sort() {
	rank := kinds().rank
	slices.SortFunc(w.list, func(x, y int32) int {
		sx, gx := w.group(x)
		sy, gy := w.group(y)
		if kx, ky := rank[kindName(gx.kind)], rank[kindName(gy.kind)]; kx != ky {
			return cmp.Compare(kx, ky)
		}
		return strings.Compare(sx.name(gx), sy.name(gy))
	})
}

// emit calls fn with the changes of the list, in its order: all of them
// without named, or those whose name named holds (reached false) or does
// not (reached true), marked Reached.
func (w *walker) emit(ctx context.Context, named map[string]bool, reached bool, fn func(Change) error) error {
	for i, e := range w.list {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		sd, g := w.group(e)
		name := sd.name(g)
		if named != nil && named[name] == reached {
			continue
		}
		c := Change{Kind: kindName(g.kind), Name: strings.Clone(name), Change: Added, Reached: reached}
		// live is set while fn runs: the details are made only then.
		var live bool
		var err error
		switch {
		case e < 0:
		case !g.is(matched):
			c.Change = Removed
		default:
			c.Change = Changed
			c.more = w.details(e, g, name, &live, &err)
		}
		live = true
		errFn := fn(c)
		live = false
		if errFn != nil {
			return errFn
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// details returns the function that yields the details of the changed
// group g of a (the change e, of that name) while live is set: those kept
// from the first pass, or those of the group compared again, stopping
// at the first error, which it leaves in err.
func (w *walker) details(e int32, g *group, name string, live *bool, err *error) func(bool, func(Detail) bool) {
	if kept, ok := w.kept[e]; ok {
		return func(_ bool, yield func(Detail) bool) {
			for _, d := range kept {
				if !*live || !yield(d) {
					return
				}
			}
		}
	}
	return func(alias bool, yield func(Detail) bool) {
		if !*live || *err != nil {
			return
		}
		gb := w.b.find(g.kind, name)
		*err = compareGroups(w.a, w.b, w.a.ids(g), w.b.ids(gb), alias, yield)
	}
}

// kindTables are bpftool's names of the kinds in lower case (names) and
// their alphabetical order (rank).
type kindTables struct {
	names [32]string
	rank  map[string]uint8
}

// kinds returns the kindTables, made on first use rather than by the
// package's initialization: every kmeta command runs that, and an init
// function faults in the 64 KB of code around it (cmd/kmeta/BENCH.md).
func kinds() *kindTables {
	kindsOnce.Do(func() {
		t := &kindsMade
		for k := range t.names {
			t.names[k] = strings.ToLower(btf.Kind(k).String())
		}
		names := slices.Clone(t.names[:])
		slices.Sort(names)
		t.rank = make(map[string]uint8, len(names))
		for i, n := range names {
			t.rank[n] = uint8(i)
		}
	})
	return &kindsMade
}

var (
	kindsMade kindTables // kinds
	kindsOnce sync.Once
)

// pollEvery is how many types the walks over every type take between two
// checks of the context (poll).
const pollEvery = 1 << 12

// poll returns ctx's error, wrapped, when id is a multiple of pollEvery
// and ctx is done.
func poll(ctx context.Context, id btf.TypeID) error {
	if id%pollEvery != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

// kindName is bpftool's name of k in lower case.
func kindName(k btf.Kind) string {
	if names := &kinds().names; int(k) < len(names) {
		return names[k]
	}
	return strings.ToLower(k.String())
}

// newSide indexes the named types of s by kind and name. It checks ctx
// every pollEvery types.
func newSide(ctx context.Context, s *btf.Spec, opts Options, seed maphash.Seed) (*side, error) {
	named := 0
	for id, t := range s.Types(opts.Scope) {
		if err := poll(ctx, id); err != nil {
			return nil, err
		}
		if t.NameOffset() != 0 {
			named++
		}
	}
	sd := &side{
		ctx:  ctx,
		spec: s, seed: seed,
		names:  make(map[btf.TypeID]string),
		groups: make([]group, 0, named),
		slots:  make([]int32, named*4/3+8), // a load of at most 3/4
	}
	for id, t := range s.Types(opts.Scope) {
		if err := poll(ctx, id); err != nil {
			return nil, err
		}
		name := t.NameBytes()
		if len(name) == 0 {
			continue
		}
		k, str := t.Kind(), unsafe.String(&name[0], len(name))
		slot := sd.slot(k, str)
		if *slot == 0 {
			sd.groups = append(sd.groups, group{kind: k, id: id, tag: uint8(hashKey(seed, k, str))})
			*slot = int32(len(sd.groups))
			continue
		}
		g := &sd.groups[*slot-1]
		g.several = true
		sd.more = append(sd.more, uint64(g.id)<<32|uint64(id))
	}
	slices.Sort(sd.more)
	sd.more = slices.Clip(sd.more)
	if err := s.Err(); err != nil {
		// A lazy Spec's iteration stopped before a record that fails
		// its check: the types after it would all seem removed.
		return nil, pkgerr.Errorf("diff: %w", err)
	}
	return sd, nil
}

// restrict keeps in a and b only the groups of the types named in names
// and of the types they reach.
func restrict(a, b *side, names []string) error {
	type key struct {
		kind btf.Kind
		name string
	}
	reach := make(map[key]bool)
	found := false
	for _, sd := range []*side{a, b} {
		var roots []btf.TypeID
		for i := range sd.groups {
			if g := &sd.groups[i]; slices.Contains(names, sd.name(g)) {
				roots = append(roots, sd.ids(g)...)
			}
		}
		found = found || len(roots) > 0
		for _, id := range closure(sd.spec, roots) {
			t, err := sd.spec.TypeByID(id)
			if err != nil || len(t.NameBytes()) == 0 {
				continue
			}
			reach[key{t.Kind(), string(t.NameBytes())}] = true
		}
	}
	if !found {
		return fmt.Errorf("diff: no type named %s: %w", strings.Join(names, ", "), btf.ErrNotFound)
	}
	for _, sd := range []*side{a, b} {
		for i := range sd.groups {
			g := &sd.groups[i]
			if !reach[key{g.kind, sd.name(g)}] {
				g.flags |= dead
			}
		}
	}
	return nil
}

// closure returns roots and every type they reach.
func closure(s *btf.Spec, roots []btf.TypeID) []btf.TypeID {
	seen := make(map[btf.TypeID]bool)
	stack := slices.Clone(roots)
	var out []btf.TypeID
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == 0 || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
		t, err := s.TypeByID(id)
		if err != nil {
			continue
		}
		for r := range t.Refs() {
			if !seen[r] {
				stack = append(stack, r)
			}
		}
	}
	return out
}
