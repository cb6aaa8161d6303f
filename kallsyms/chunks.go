package kallsyms

import "sync"

// chunks is an append-only sequence kept in fixed-size pieces, so that it
// grows without copying: a builder's slices, grown by append, would
// allocate several times their final size while a big module is parsed,
// and that garbage makes the collector run during Load. The pieces come
// from a pool and go back to it with release, so that a load reuses the
// previous one's and does not make the collector run while the kernel
// formats the file.
type chunks[T any] struct {
	full  [][]T
	cur   []T
	n     int
	shift uint8      // pieces hold 1<<shift elements
	pool  *sync.Pool // of *[]T with capacity 1<<shift
}

func newChunks[T any](shift uint8, pool *sync.Pool) chunks[T] {
	return chunks[T]{shift: shift, pool: pool}
}

// len returns the number of elements.
func (c *chunks[T]) len() int { return c.n }

// add appends v.
func (c *chunks[T]) add(v T) {
	if len(c.cur) == cap(c.cur) {
		c.next()
	}
	c.cur = append(c.cur, v)
	c.n++
}

// addAll appends the elements of s.
func (c *chunks[T]) addAll(s []T) {
	for len(s) > 0 {
		if len(c.cur) == cap(c.cur) {
			c.next()
		}
		k := copy(c.cur[len(c.cur):cap(c.cur)], s)
		c.cur, s = c.cur[:len(c.cur)+k], s[k:]
		c.n += k
	}
}

// firstPiece is the capacity of a sequence's first piece, which grows by
// doubling into a whole one: most modules have a few dozen symbols, and a
// whole piece for each (96 KiB of addresses and names) made memory grow
// with the number of module names rather than with the input's size.
const firstPiece = 16

func (c *chunks[T]) next() {
	if whole := 1 << c.shift; cap(c.cur) < whole {
		// The first piece, not yet whole: grow it (to exactly whole
		// elements at the end, which at and appendRange rely on).
		n := firstPiece
		if c.cur != nil {
			n = 2 * cap(c.cur)
		}
		if n < whole {
			c.cur = append(make([]T, 0, n), c.cur...)
			return
		}
		if p, ok := c.pool.Get().(*[]T); ok && cap(*p) == whole {
			c.cur = append((*p)[:0], c.cur...)
			return
		}
		c.cur = append(make([]T, 0, whole), c.cur...)
		return
	}
	c.full = append(c.full, c.cur)
	if p, ok := c.pool.Get().(*[]T); ok && cap(*p) == 1<<c.shift {
		c.cur = (*p)[:0]
		return
	}
	c.cur = make([]T, 0, 1<<c.shift)
}

// release empties c and gives its pieces back to the pool. Slices that
// flat or appendRange returned stay valid; those of no other method do.
func (c *chunks[T]) release() {
	for _, p := range append(c.full, c.cur) {
		if cap(p) == 1<<c.shift {
			p = p[:0]
			c.pool.Put(&p)
		}
	}
	*c = chunks[T]{shift: c.shift, pool: c.pool}
}

// truncate empties c, giving its whole pieces but the last back to the
// pool and keeping that one for the next elements.
func (c *chunks[T]) truncate() {
	for _, p := range c.full {
		p = p[:0]
		c.pool.Put(&p)
	}
	clear(c.full)
	c.full, c.cur, c.n = c.full[:0], c.cur[:0], 0
}

// at returns element i.
func (c *chunks[T]) at(i int) T {
	if k := i >> c.shift; k < len(c.full) {
		return c.full[k][i&(1<<c.shift-1)]
	}
	return c.cur[i&(1<<c.shift-1)]
}

// last returns the last element; the sequence must not be empty.
func (c *chunks[T]) last() T { return c.cur[len(c.cur)-1] }

// flat returns the elements in one new slice of exactly their number.
func (c *chunks[T]) flat() []T {
	out := make([]T, 0, c.n)
	for _, p := range c.full {
		out = append(out, p...)
	}
	return append(out, c.cur...)
}

// appendRange appends elements [from, to) to dst.
func (c *chunks[T]) appendRange(dst []T, from, to int) []T {
	for from < to {
		k, i := from>>c.shift, from&(1<<c.shift-1)
		p := c.cur
		if k < len(c.full) {
			p = c.full[k]
		}
		p = p[i:min(len(p), i+to-from)]
		dst = append(dst, p...)
		from += len(p)
	}
	return dst
}
