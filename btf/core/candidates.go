package core

import (
	"iter"

	"github.com/kmeta-dev/kmeta/btf"
)

// candSeg is the number of ids in each full segment of a candList.
const candSeg = 1 << 12

// candList is a list of candidate target types in search order: their
// ids, 4 bytes each, and the Spec of each run of them (the main BTF, or
// one module). The ids are kept in segments of candSeg that never move
// once full, so that a name that hundreds of thousands of flavors share
// grows its list without copying it (hostile.Flavors, BENCH.md); only
// the first segment grows by appending. A list is not changed once its
// search is done: pruning (calcReloInsn) makes a new one.
type candList struct {
	segs [][]btf.TypeID
	runs []candRun
	n    int
}

// candRun says that the candidates from the previous run's end to end
// are types of s.
type candRun struct {
	s   *btf.Spec
	end int
}

// add appends the type id of s.
func (l *candList) add(s *btf.Spec, id btf.TypeID) {
	if len(l.runs) == 0 || l.runs[len(l.runs)-1].s != s {
		l.runs = append(l.runs, candRun{s: s})
	}
	if len(l.segs) == 0 || len(l.segs[len(l.segs)-1]) == candSeg {
		c := 0
		if len(l.segs) > 0 {
			c = candSeg
		}
		l.segs = append(l.segs, make([]btf.TypeID, 0, c))
	}
	last := &l.segs[len(l.segs)-1]
	*last = append(*last, id)
	l.n++
	l.runs[len(l.runs)-1].end = l.n
}

// len returns the number of candidates; a nil list has none.
func (l *candList) len() int {
	if l == nil {
		return 0
	}
	return l.n
}

// all yields the candidates in order, with their index in the list.
func (l *candList) all() iter.Seq2[int, cand] {
	return func(yield func(int, cand) bool) {
		if l == nil {
			return
		}
		i := 0
		for _, r := range l.runs {
			for ; i < r.end; i++ {
				if !yield(i, cand{s: r.s, id: l.segs[i/candSeg][i%candSeg]}) {
					return
				}
			}
		}
	}
}

// cand is a candidate target type.
type cand struct {
	s  *btf.Spec
	id btf.TypeID
}

// candMatches records which candidates of a list matched, while they are
// matched one by one; its bit set is made at the first one that does
// not, and a list of candidates that all match is not copied.
type candMatches struct {
	n    int      // candidates that matched
	bits []uint64 // which matched, once one has not
}

// note records whether candidate i (the next one) of a list of n
// matched.
func (m *candMatches) note(i, n int, ok bool) {
	if !ok && m.bits == nil {
		m.bits = make([]uint64, (n+63)/64)
		for j := range m.n {
			m.bits[j/64] |= 1 << (j % 64)
		}
	}
	if ok {
		if m.bits != nil {
			m.bits[i/64] |= 1 << (i % 64)
		}
		m.n++
	}
}

// prune returns l with the candidates that matched first, as libbpf's
// in-place pruning of its cached list leaves it: only the matches when
// every candidate was looked at, or, when the search stopped early
// (done false), the matches followed by the list's candidates from
// position m.n on. A list that pruning leaves as it is comes back as is.
func (m *candMatches) prune(l *candList, done bool) *candList {
	if m.n == 0 || m.bits == nil {
		return l // nothing matched, or nothing failed to: nothing moves
	}
	out := new(candList)
	for i, c := range l.all() {
		if m.bits[i/64]&(1<<(i%64)) != 0 {
			out.add(c.s, c.id)
		}
	}
	if !done {
		for i, c := range l.all() {
			if i >= m.n {
				out.add(c.s, c.id)
			}
		}
	}
	return out
}
