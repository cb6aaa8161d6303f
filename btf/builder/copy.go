package builder

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// source records what a Builder copied from one Spec (that Spec's own
// types; its bases have sources of their own). Keyed by the *btf.Spec, so
// copying the same type twice, also from two modules on one base, finds the
// earlier copy.
type source struct {
	spec   *btf.Spec
	first  btf.TypeID
	chain  []*source // this source, then its bases' sources
	depth  int       // number of bases below the Spec
	seq    int       // creation order, for a deterministic output order
	inBase bool      // the Spec is the Builder's base or one of its bases

	ids   []btf.TypeID // Builder id of each own type; 0 = not copied
	fwds  []btf.TypeID // FWD standing for a struct or union (fwd mode)
	state []uint8      // walk state during one fwd-mode copy

	strs     []byte   // the Spec's own string section, refreshed per copy
	strStart uint32   // string offset of strs[0]
	strCache offCache // source string offset -> Builder string offset
}

// pendingFlag marks, in source.ids, a type chosen for copying that has no id
// yet; the other bits are its index in copier.pending.
const pendingFlag = btf.TypeID(1) << 31

// Walk levels: how a type was reached.
const (
	levelPointee uint8 = 1 // only through a pointer
	levelValue   uint8 = 2 // by value (or as a root)
)

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
	src := &source{spec: s, first: s.FirstID()}
	src.chain = []*source{src}
	if s.Base() != nil {
		src.chain = append(src.chain, b.sourceOf(s.Base()).chain...)
	}
	src.depth = len(src.chain) - 1
	src.seq = len(b.srcs)
	for o := b.base; o != nil; o = o.Base() {
		src.inBase = src.inBase || o == s
	}
	if !src.inBase {
		src.ids = make([]btf.TypeID, s.NumTypes())
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
	i := r - o.first
	if int(i) >= len(o.ids) {
		return 0
	}
	if id := o.ids[i]; id != 0 && id&pendingFlag == 0 {
		return id
	}
	if o.fwds != nil {
		return o.fwds[i]
	}
	return 0
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
	if err := b.copyTypes([]btf.Type{t}, false); err != nil {
		return 0, err
	}
	return b.sourceOf(t.Spec()).chain[0].mapped(t.ID()), nil
}

// CopyTypes copies ts and everything they reference, as Copy does, in one
// batch: the new types are numbered in source id order over the whole batch.
// It returns the Builder id of each of ts.
func (b *Builder) CopyTypes(ts []btf.Type) ([]btf.TypeID, error) {
	if err := b.copyTypes(ts, false); err != nil {
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
// gives btf.ErrClosed.
func (b *Builder) CopyAll(s *btf.Spec) error {
	if _, err := s.TypeByID(0); err != nil {
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
			c.pending = make([]pendingType, 0, o.spec.NumTypes())
		}
		for id, t := range o.spec.Types(btf.ScopeOwn) {
			if i := id - o.first; o.ids[i] == 0 {
				o.ids[i] = pendingFlag | btf.TypeID(len(c.pending))
				c.pending = append(c.pending, pendingType{t: t, src: o})
			}
		}
	}
	return c.commit()
}

// copier runs one copy: walk the closure, number it, then encode it.
type copier struct {
	b        *Builder
	fwd      bool // named structs and unions reached only through pointers become FWDs
	pending  []pendingType
	stack    []walkItem
	elems    int // vlen elements walked, to size the string tables
	recBytes int // bytes of the records walked, to size the type section
	err      error
}

type pendingType struct {
	t   btf.Type
	src *source
	fwd bool // write a FWD for this struct or union
}

// walkItem is a queued type (its index in pending) and how it was reached.
// It holds no pointers, so the walk's stack costs the GC nothing.
type walkItem struct {
	pend  btf.TypeID
	level uint8
}

func (b *Builder) copyTypes(roots []btf.Type, fwd bool) error {
	c := copier{b: b, fwd: fwd}
	for _, t := range roots {
		if t.IsVoid() {
			continue
		}
		if _, err := t.Spec().TypeByID(0); err != nil {
			return err
		}
		src := b.sourceOf(t.Spec())
		src.refresh()
		c.visit(src, t, levelValue)
	}
	c.walk()
	if c.err != nil {
		c.unmark()
		return c.err
	}
	c.order()
	return c.commit()
}

// refresh reloads the string sections of src's chain, which the Builder
// reads while copying (a Spec's data may be remapped between copies).
func (src *source) refresh() {
	for _, o := range src.chain {
		o.strs, o.strStart = o.spec.StringSection()
	}
}

// order puts the pending types in output order: by source (bases first,
// then in order of first use) and by id within a source. Batches larger than
// 1/64 of their sources are ordered by scanning the sources' id tables
// (cheaper than sorting them), smaller ones by sorting.
// Guarded by BenchmarkMinimalTaskStruct.
func (c *copier) order() {
	var srcs []*source
	total := 0
	for _, p := range c.pending {
		if !slices.Contains(srcs, p.src) {
			srcs = append(srcs, p.src)
			total += len(p.src.ids)
		}
	}
	slices.SortFunc(srcs, func(x, y *source) int {
		return cmp.Or(cmp.Compare(x.depth, y.depth), cmp.Compare(x.seq, y.seq))
	})
	if len(c.pending)*64 < total {
		slices.SortFunc(c.pending, func(x, y pendingType) int {
			return cmp.Or(cmp.Compare(x.src.depth, y.src.depth), cmp.Compare(x.src.seq, y.src.seq), cmp.Compare(x.t.ID(), y.t.ID()))
		})
	} else {
		// Move each pending type to its rank in place: ranks come from the
		// scan; following the permutation's cycles needs no second slice.
		rank := make([]uint32, len(c.pending))
		r := uint32(0)
		for _, src := range srcs {
			for _, id := range src.ids {
				if id&pendingFlag != 0 {
					rank[id&^pendingFlag] = r
					r++
				}
			}
		}
		for i := range rank {
			for rank[i] != uint32(i) {
				j := rank[i]
				c.pending[i], c.pending[j] = c.pending[j], c.pending[i]
				rank[i], rank[j] = rank[j], rank[i]
			}
		}
	}
}

func namedComposite(t btf.Type) bool {
	return t.IsComposite() && t.NameOffset() != 0
}

// visit marks t for copying, unless it is already copied, and queues it for
// the walk over its references.
func (c *copier) visit(src *source, t btf.Type, level uint8) {
	if src.inBase {
		return
	}
	i := t.ID() - src.first
	id := src.ids[i]
	if id != 0 && id&pendingFlag == 0 {
		return // copied by an earlier call
	}
	if !c.fwd {
		if id == 0 {
			c.queue(src, t, i, levelValue)
		}
		return
	}
	if src.state == nil {
		src.state = make([]uint8, len(src.ids))
	}
	pointee := level == levelPointee && namedComposite(t)
	if src.state[i] >= level || pointee && src.fwds != nil && src.fwds[i] != 0 {
		return
	}
	if src.state[i] == 0 {
		c.queue(src, t, i, 0)
	}
	src.state[i] = level
	if !pointee {
		c.stack = append(c.stack, walkItem{pend: src.ids[i] &^ pendingFlag, level: level})
	}
}

// queue adds t (own type i of src) to the pending types, and to the walk
// unless level is 0.
func (c *copier) queue(src *source, t btf.Type, i btf.TypeID, level uint8) {
	if c.pending == nil {
		// Closures of kernel structs are a few percent of the types.
		c.pending = make([]pendingType, 0, max(64, len(src.ids)/16))
		c.stack = make([]walkItem, 0, 1024)
	}
	k := btf.TypeID(len(c.pending))
	src.ids[i] = pendingFlag | k
	c.pending = append(c.pending, pendingType{t: t, src: src})
	if level != 0 {
		c.stack = append(c.stack, walkItem{pend: k, level: level})
	}
}

// walk visits the references of every queued type until the closure is
// complete. It reads the records in place: wire.KindFields says which words
// hold type ids.
func (c *copier) walk() {
	for len(c.stack) > 0 && c.err == nil {
		it := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		p := &c.pending[it.pend]
		t, src := p.t, p.src
		rec := t.Record()
		if rec == nil {
			c.err = btf.ErrClosed
			return
		}
		info := wire.Word(rec, 4)
		k := wire.InfoKind(info)
		if int(k) >= wire.NumKinds {
			c.err = fmt.Errorf("builder: copy %v: cannot write kind %d", t, k)
			return
		}
		c.elems += wire.InfoVlen(info)
		c.recBytes += len(rec)
		lv := childLevel(k, it.level)
		f := &wire.KindFields[k]
		if f.Ref0 != wire.NoField {
			c.ref(src, btf.TypeID(wire.Word(rec, uint32(f.Ref0))), lv)
		}
		if f.Ref1 != wire.NoField {
			c.ref(src, btf.TypeID(wire.Word(rec, uint32(f.Ref1))), lv)
		}
		if f.ElemRef != wire.NoField {
			l := &wire.DefaultLayouts[k]
			es := uint32(l.ElemSize)
			for off := wire.TypeSize + uint32(l.InfoSize) + uint32(f.ElemRef); off < uint32(len(rec)); off += es {
				c.ref(src, btf.TypeID(wire.Word(rec, off)), lv)
			}
		}
	}
}

// ref visits the type that a record of from refers to. Types already
// queued are skipped before their record is looked up.
func (c *copier) ref(from *source, r btf.TypeID, level uint8) {
	if r == 0 || c.err != nil {
		return
	}
	o := from.owner(r)
	if o.inBase {
		return
	}
	i := r - o.first
	if id := o.ids[i]; id != 0 && (!c.fwd || id&pendingFlag == 0 || o.state[i] >= level) {
		return
	}
	t, err := o.spec.TypeByID(r)
	if err != nil {
		c.err = err
		return
	}
	c.visit(o, t, level)
}

// childLevel returns how the types a record of kind k refers to are reached,
// when the record itself was reached at level lv: through a pointer for PTR,
// by value for the parts of composites, arrays and variables, and as the
// record itself otherwise (typedefs, qualifiers, functions, tags).
func childLevel(k btf.Kind, lv uint8) uint8 {
	switch k {
	case btf.KindPointer:
		return levelPointee
	case btf.KindArray, btf.KindStruct, btf.KindUnion, btf.KindVar, btf.KindDatasec:
		return levelValue
	}
	return lv
}

// unmark forgets the marks of a copy that failed or finished.
func (c *copier) unmark() {
	for _, p := range c.pending {
		i := p.t.ID() - p.src.first
		if p.src.ids[i]&pendingFlag != 0 {
			p.src.ids[i] = 0
		}
		if p.src.state != nil {
			p.src.state[i] = 0
		}
	}
}

// commit numbers the pending types in their current order and encodes
// them. On error the Builder is restored to its state before the copy.
func (c *copier) commit() error {
	b := c.b
	if uint64(b.NextID())+uint64(len(c.pending)) > wire.MaxTypeID+1 {
		c.unmark()
		return ErrTooManyTypes
	}
	id := b.NextID()
	for k := range c.pending {
		p := &c.pending[k]
		i := p.t.ID() - p.src.first
		if c.fwd && p.src.state[i] == levelPointee && namedComposite(p.t) {
			if p.src.fwds == nil {
				p.src.fwds = make([]btf.TypeID, len(p.src.ids))
			}
			p.src.fwds[i] = id
			p.src.ids[i] = 0
			p.fwd = true
		} else {
			p.src.ids[i] = id
		}
		id++
	}
	nTypes, n, nStrs, maxRef := len(b.types), b.n, len(b.strs.data), b.maxRef
	if c.recBytes == 0 { // CopyAll does not walk
		c.recBytes = 40 * len(c.pending)
	}
	b.types = slices.Grow(b.types, c.recBytes+wire.TypeSize*len(c.pending))
	// About one new string for every two names copied, in kernel BTF.
	if len(c.pending) > 0 {
		b.strs.reserve((len(c.pending) + c.elems) / 2)
		c.pending[0].src.strCache.reserve((len(c.pending) + c.elems) / 2)
	}
	for _, p := range c.pending {
		if err := b.encode(p.t, p.src, p.fwd); err != nil {
			b.types, b.n, b.maxRef = b.types[:nTypes], n, maxRef
			b.strs.truncate(nStrs)
			for _, src := range b.srcs {
				src.strCache = offCache{}
			}
			c.forget()
			return err
		}
	}
	if c.fwd {
		c.unmark()
	}
	return nil
}

// forget undoes the numbering of a failed commit.
func (c *copier) forget() {
	for _, p := range c.pending {
		i := p.t.ID() - p.src.first
		if p.fwd {
			p.src.fwds[i] = 0
		} else {
			p.src.ids[i] = 0
		}
		if p.src.state != nil {
			p.src.state[i] = 0
		}
	}
}
