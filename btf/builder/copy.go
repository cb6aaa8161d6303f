package builder

import (
	"fmt"
	"iter"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// source records what a Builder copied from one Spec (that Spec's own
// types; its bases have sources of their own). Keyed by the *btf.Spec, so
// copying the same type twice, also from two modules on one base, finds the
// earlier copy.
type source struct {
	spec   *btf.Spec
	first  btf.TypeID
	n      uint32    // number of own types
	chain  []*source // this source, then its bases' sources
	depth  int       // number of bases below the Spec
	seq    int       // creation order, for a deterministic output order
	inBase bool      // the Spec is the Builder's base or one of its bases

	ids idMap // Builder ids of the own types copied

	// State of the running copy, see copier.
	inCopy bool     // the copy has queued types of this source
	fresh  bool     // ids was empty when it did: the copy sets its rank form
	mark   bitset   // own types queued by the copy
	prefix []uint32 // mark.ranks()
	pos    uint32   // output position of the source's first queued type

	strs     strtab.Chain // the chain's string sections, refreshed per copy
	strCache offCache     // source string offset -> Builder string offset
	uncached bool         // copyStr keeps no strCache (see WriteCopy)
}

func (b *Builder) sourceOf(s *btf.Spec) *source {
	if src, ok := b.srcs[s]; ok {
		return src
	}
	return b.newSource(s)
}

func (b *Builder) newSource(s *btf.Spec) *source {
	if b.srcs == nil {
		b.srcs = make(map[*btf.Spec]*source)
	}
	src := &source{spec: s, first: s.FirstID(), n: uint32(s.NumTypes())}
	src.chain = []*source{src}
	if s.Base() != nil {
		src.chain = append(src.chain, b.sourceOf(s.Base()).chain...)
	}
	src.depth = len(src.chain) - 1
	src.seq = len(b.srcs)
	for o := b.base; o != nil; o = o.Base() {
		src.inBase = src.inBase || o == s
	}
	b.srcs[s] = src
	return src
}

// owner returns the source in src's chain that holds type id r (r != 0).
func (src *source) owner(r btf.TypeID) *source {
	for _, o := range src.chain {
		if r >= o.first {
			return o
		}
	}
	return src.chain[len(src.chain)-1]
}

// mapped returns the Builder id of type r as referenced from src's records.
func (src *source) mapped(r btf.TypeID) btf.TypeID {
	if r == 0 {
		return 0
	}
	o := src.owner(r)
	if o.inBase {
		return r
	}
	i := uint32(r - o.first)
	if i >= o.n {
		return 0
	}
	return o.ids.id(i)
}

// Copy copies t into the Builder together with every type it references,
// directly or not, and returns t's id in the Builder. Types copied before,
// by any Copy method, are not copied again: copying the same type twice
// returns the same id. Types of the Builder's base (the same *btf.Spec, or
// one of its bases) are referenced, not copied. Void gives id 0.
//
// The new types get consecutive ids in the order of their ids in the
// source (base types first). A closed Spec gives btf.ErrClosed; a kind the
// Builder cannot write gives an error and leaves the Builder unchanged.
func (b *Builder) Copy(t btf.Type) (btf.TypeID, error) {
	if t.IsVoid() {
		return 0, nil
	}
	if err := b.copyTypes(slices.Values([]btf.Type{t})); err != nil {
		return 0, err
	}
	return b.sourceOf(t.Spec()).chain[0].mapped(t.ID()), nil
}

// CopyTypes copies ts and everything they reference, as Copy does, in one
// batch: the new types are numbered in source id order over the whole batch.
// It returns the Builder id of each of ts.
func (b *Builder) CopyTypes(ts []btf.Type) ([]btf.TypeID, error) {
	if err := b.copyTypes(slices.Values(ts)); err != nil {
		return nil, err
	}
	ids := make([]btf.TypeID, len(ts))
	for i, t := range ts {
		if !t.IsVoid() {
			ids[i] = b.sourceOf(t.Spec()).mapped(t.ID())
		}
	}
	return ids, nil
}

// CopyAll copies every type of s and of its bases that the Builder does not
// already hold, in id order. Into an empty Builder this preserves every id:
// with New, s's whole chain is copied (split input gives standalone
// output); with NewSplit on s's base, only s's own types are. A closed Spec
// gives btf.ErrClosed; a lazy one is checked whole first (btf.Spec.Check),
// and a record that an eager open would refuse gives its error.
func (b *Builder) CopyAll(s *btf.Spec) error {
	if _, err := s.TypeByID(0); err != nil {
		return err
	}
	if err := s.Check(); err != nil { // a lazy Spec's walk would stop short
		return err
	}
	c := copier{b: b}
	src := b.sourceOf(s)
	src.refresh()
	for k := len(src.chain) - 1; k >= 0; k-- {
		o := src.chain[k]
		if o.inBase {
			continue
		}
		if c.pending == nil {
			c.pending = make([]pendingType, 0, o.n)
		}
		for id, t := range o.spec.Types(btf.ScopeOwn) {
			if i := uint32(id - o.first); !o.ids.whole(i) {
				c.queue(o, t, i, false)
			}
		}
	}
	return c.commit()
}

// copier runs one copy: walk the closure, number it, then encode it. The
// types it queues are marked in their source's mark set, which it clears
// when done.
type copier struct {
	b        *Builder
	pending  []pendingType
	srcs     []*source // sources with queued types
	perm     []uint32  // pending indexes in output order, see order
	stack    []uint32  // pending indexes to walk
	elems    int       // vlen elements walked, to size the string tables
	recBytes int       // bytes of the records walked, to size the type section
	walked   int       // number of records walked
	err      error
}

// pendingType is a type to copy: its id in src's Spec, not its btf.Type,
// which is twice the size, since a copy may queue a million of them.
type pendingType struct {
	src *source
	id  btf.TypeID
}

// typ returns the pending type; after its Spec is closed, a Type whose
// Record is nil.
func (p *pendingType) typ() btf.Type {
	t, _ := p.src.spec.TypeByID(p.id)
	return t
}

func (b *Builder) copyTypes(roots iter.Seq[btf.Type]) error {
	c := copier{b: b}
	for t := range roots {
		if c.err != nil {
			break
		}
		if t.IsVoid() {
			continue
		}
		if _, err := t.Spec().TypeByID(0); err != nil {
			return err
		}
		src := b.sourceOf(t.Spec())
		src.refresh()
		c.visit(src, t)
	}
	c.walk()
	if c.err != nil {
		c.finish(false)
		return c.err
	}
	return c.commit()
}

// refresh reloads the string sections of src's chain, which the Builder
// reads while copying (a Spec's data may be remapped between copies).
func (src *source) refresh() {
	// Every source of the chain gets its own chain's sections (its
	// strings are read by copyStr too), built from the root up, each in
	// a slice of its own.
	for i := len(src.chain) - 1; i >= 0; i-- {
		o := src.chain[i]
		data, start := o.spec.StringSection()
		o.strs = append(o.strs[:0], strtab.Section{Start: start, Data: data})
		if i+1 < len(src.chain) {
			o.strs = append(o.strs, src.chain[i+1].strs...)
		}
	}
}

// visit marks t for copying, unless it is already copied, and queues it for
// the walk over its references.
func (c *copier) visit(src *source, t btf.Type) {
	if src.inBase {
		return
	}
	i := uint32(t.ID() - src.first)
	if src.ids.whole(i) {
		return // copied by an earlier call
	}
	if !src.inCopy || !src.mark.has(i) {
		c.queue(src, t, i, true)
	}
}

// queue adds t (own type i of src) to the pending types, and to the walk
// if walk is set.
func (c *copier) queue(src *source, t btf.Type, i uint32, walk bool) {
	if c.pending == nil {
		// Closures of kernel structs are a few percent of the types.
		c.pending = make([]pendingType, 0, max(64, int(src.n/16)))
		c.stack = make([]uint32, 0, 1024)
	}
	if !src.inCopy {
		c.begin(src)
	}
	k := uint32(len(c.pending))
	if c.err == nil && uint64(c.b.NextID())+uint64(k) > c.b.lastID() {
		// commit would refuse the copy: refuse it before the closure
		// grows further, at the first type past the limit.
		c.err = pkgerr.Errorf("builder: copy %v: %w", t, ErrTooManyTypes)
	}
	src.mark.set(i)
	c.pending = append(c.pending, pendingType{id: t.ID(), src: src})
	if walk {
		c.stack = append(c.stack, k)
	}
}

// begin makes src part of the copy.
func (c *copier) begin(src *source) {
	src.inCopy = true
	src.fresh = src.ids.empty()
	if !src.fresh {
		src.ids.densify(int(src.n))
	}
	if src.mark == nil {
		src.mark = newBitset(int(src.n))
	}
	c.srcs = append(c.srcs, src)
}

// walk visits the references of every queued type until the closure is
// complete. It reads the records in place: their wire.Shape says which words
// hold type ids.
func (c *copier) walk() {
	for len(c.stack) > 0 && c.err == nil {
		p := &c.pending[c.stack[len(c.stack)-1]]
		c.stack = c.stack[:len(c.stack)-1]
		t, src := p.typ(), p.src
		rec := t.Record()
		if rec == nil {
			c.err = btf.ErrClosed
			return
		}
		info := wire.Record(rec).Info()
		k := wire.InfoKind(info)
		if int(k) >= wire.NumKinds {
			c.err = fmt.Errorf("builder: copy %v: cannot write kind %d", t, k)
			return
		}
		c.elems += wire.InfoVlen(info)
		c.recBytes += len(rec)
		c.walked++
		wire.Record(rec).ForRefs(func(at uint32) { c.ref(src, btf.TypeID(wire.Word(rec, at))) })
	}
}

// ref visits the type that a record of from refers to. Types already
// queued are skipped before their record is looked up.
func (c *copier) ref(from *source, r btf.TypeID) {
	if r == 0 || c.err != nil {
		return
	}
	o := from.owner(r)
	if o.inBase {
		return
	}
	i := uint32(r - o.first)
	if o.inCopy && o.mark.has(i) {
		return
	}
	if o.ids.whole(i) {
		return
	}
	t, err := o.spec.TypeByID(r)
	if err != nil {
		c.err = err
		return
	}
	c.visit(o, t)
}
