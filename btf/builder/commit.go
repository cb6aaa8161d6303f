package builder

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// order sets c.perm to the pending types in output order: by source (bases
// first, then in order of first use) and by id within a source. A type's
// rank among the marked types of its source gives its place directly, so
// nothing is sorted but the sources.
func (c *copier) order() {
	slices.SortFunc(c.srcs, func(x, y *source) int {
		return cmp.Or(cmp.Compare(x.depth, y.depth), cmp.Compare(x.seq, y.seq))
	})
	pos := uint32(0)
	for _, src := range c.srcs {
		var n uint32
		src.prefix, n = src.mark.ranks()
		src.pos = pos
		pos += n
	}
	c.perm = make([]uint32, len(c.pending))
	for k := range c.pending {
		p := &c.pending[k]
		i := uint32(p.id - p.src.first)
		c.perm[p.src.pos+p.src.mark.rank(p.src.prefix, i)] = uint32(k)
	}
}

// number gives the pending types their ids, in output order. A source new
// to the Builder gets the rank form of its id map (its marked types are
// numbered consecutively from the first); the others were made dense.
func (c *copier) number() {
	next := c.b.NextID()
	for pos, k := range c.perm {
		p := &c.pending[k]
		src, m := p.src, &p.src.ids
		i := uint32(p.id - src.first)
		if !src.fresh {
			m.dense[i] = next + btf.TypeID(pos)
		}
	}
	for _, src := range c.srcs {
		if src.fresh {
			src.ids.numbered, src.ids.prefix = src.mark, src.prefix
			src.ids.first = next + btf.TypeID(src.pos)
		}
	}
}

// commit numbers the pending types and encodes them in output order. On
// error the Builder is restored to its state before the copy.
func (c *copier) commit() error {
	b := c.b
	if uint64(b.NextID())+uint64(len(c.pending)) > b.lastID()+1 {
		c.finish(false)
		return ErrTooManyTypes
	}
	if len(c.pending) == 0 {
		return nil
	}
	c.order()
	c.number()
	nTypes, n, nStrs, maxRef := len(b.types), b.n, len(b.strs.data()), b.maxRef
	// The records walked, and a FWD or a guess for each of the others
	// (CopyAll walks none).
	unwalked := len(c.pending) - c.walked
	if c.walked == 0 {
		unwalked *= 40 + wire.TypeSize
	} else {
		unwalked *= wire.TypeSize
	}
	b.types = slices.Grow(b.types, c.recBytes+unwalked)
	names, size := newNames(len(c.pending)+c.elems, c.srcs)
	b.strs.reserve(names, size)
	if src := c.pending[0].src; !src.uncached {
		src.strCache.Reserve(names)
	}
	for _, k := range c.perm {
		p := &c.pending[k]
		if err := b.encode(p.typ(), p.src, false); err != nil {
			b.types, b.n, b.maxRef = b.types[:nTypes], n, maxRef
			b.strs.truncate(nStrs)
			for _, src := range b.srcs {
				src.strCache = offCache{}
			}
			c.forget()
			c.finish(false)
			return err
		}
	}
	c.finish(true)
	return nil
}

// newNames guesses how many strings a copy of types records with elems
// vlen elements in all adds to the Builder, and how many bytes: about one
// for every two names copied, as in kernel BTF, but never more than the
// source string sections of srcs hold, so that records that share few
// names (members m0, m1, ... of many wide structs) reserve nothing per
// member.
func newNames(names int, srcs []*source) (n, size int) {
	held := 0
	for _, src := range srcs {
		data, _ := src.spec.StringSection()
		held += bytes.Count(data, []byte{0})
		size += len(data)
	}
	return min(names/2, held), size
}

// forget undoes the numbering of a failed commit.
func (c *copier) forget() {
	for _, src := range c.srcs {
		if src.fresh {
			src.ids = idMap{}
		}
	}
	for _, p := range c.pending {
		if !p.src.fresh {
			p.src.ids.dense[p.id-p.src.first] = 0
		}
	}
}

// finish clears the marks of the copy. With kept set the copy succeeded,
// and the mark sets of fresh sources now belong to their id maps.
func (c *copier) finish(kept bool) {
	for _, src := range c.srcs {
		if kept && src.fresh {
			src.mark = nil
		}
	}
	for _, p := range c.pending {
		i := uint32(p.id - p.src.first)
		if p.src.mark != nil {
			p.src.mark.unset(i)
		}
	}
	for _, src := range c.srcs {
		src.inCopy, src.fresh, src.prefix = false, false, nil
	}
}
