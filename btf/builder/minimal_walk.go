package builder

import (
	"fmt"
	"math/bits"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Walk levels of Minimal's FwdPointees: how a type was reached.
const (
	levelPointee uint8 = 1 // only through a pointer
	levelValue   uint8 = 2 // by value (or as a root)
)

// minWalk finds what Minimal copies into a fresh Builder: the closure of
// the wanted types over a Spec's chain, held as bits per type of each
// source, and numbers it as a copy into a fresh Builder numbers it (base
// types first, each source in id order). A type costs its bits, not an
// entry in a list: a closure can be most of a large input.
type minWalk struct {
	srcs   []*source // the Spec's chain, its root base first
	marks  []bitset  // per source: the types reached
	values []bitset  // FwdPointees: the types reached by value (or as roots)
	fwds   []bitset  // FwdPointees: named structs and unions reached only through pointers
	fwd    bool
	stack  []uint32 // types to walk: id<<1 | 1 when reached by value
	n      int      // types reached

	// What the copy will hold, to size its tables: bytes and vlen
	// elements of the records walked, and the number of walks; and the
	// bytes of their names, NULs and repeats counted (at least what the
	// copy's string section takes; a FWD counts its own name).
	// Reserving nameBytes up front keeps a closure of long names from
	// growing the section by copies, the old and the new array live
	// together: a struct of 65,535 members with 200-byte names (13.9 MB)
	// peaked at 53.8 MB against the reading commands' 47.8 (BENCH.md).
	recBytes, elems, walked, nameBytes int
}

// newMinWalk returns a walk over the chain of top, a source of a fresh
// Builder.
func newMinWalk(top *source, fwd bool) *minWalk {
	m := &minWalk{fwd: fwd}
	for k := len(top.chain) - 1; k >= 0; k-- {
		src := top.chain[k]
		m.srcs = append(m.srcs, src)
		m.marks = append(m.marks, newBitset(int(src.n)))
		if fwd {
			m.values = append(m.values, newBitset(int(src.n)))
			m.fwds = append(m.fwds, newBitset(int(src.n)))
		}
	}
	return m
}

// run walks from every match of want, one match at a time. Without
// FwdPointees, a want whose matches reach more types than BTF holds is
// refused by name; with it, the first type reached past the limit is.
func (m *minWalk) run(s *btf.Spec, want []Want) error {
	for i := range want {
		w := &want[i]
		for t := range s.Matches(w.Name, btf.FindOptions{Kind: w.Kind}) {
			if t.IsVoid() {
				continue
			}
			k, idx, err := m.locate(t.ID())
			if err == nil {
				err = m.visit(k, idx, t, levelValue)
			}
			if err == nil {
				err = m.walk()
			}
			// A walk that reached more types than BTF holds stops
			// with ErrTooManyTypes itself; this names the want.
			if err == ErrTooManyTypes && !m.fwd {
				return pkgerr.Errorf("builder: type %q reaches %d types or more, more than BTF holds: %w", w.Name, m.n, ErrTooManyTypes)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// locate returns the source (its index in m.srcs) that holds type id and
// the type's index in it, or the error of looking the id up.
func (m *minWalk) locate(id btf.TypeID) (int, uint32, error) {
	for k := len(m.srcs) - 1; k >= 0; k-- {
		src := m.srcs[k]
		if id < src.first {
			continue
		}
		if i := uint32(id - src.first); i < src.n {
			return k, i, nil
		}
		break
	}
	_, err := m.srcs[len(m.srcs)-1].spec.TypeByID(id)
	if err == nil {
		err = fmt.Errorf("builder: type id %d outside the Spec's types", id)
	}
	return 0, 0, err
}

// level returns how type i of source k was reached: 0 (not yet),
// levelPointee or levelValue. Without FwdPointees every type reached is
// walked whole, as if by value.
func (m *minWalk) level(k int, i uint32) uint8 {
	switch {
	case !m.marks[k].has(i):
		return 0
	case !m.fwd || m.values[k].has(i):
		return levelValue
	}
	return levelPointee
}

// visit records that t, type i of source k, is reached at level, and
// queues it for the walk unless it is already walked at that level or is
// a named struct or union reached through a pointer, which FwdPointees
// writes as a FWD without its members.
func (m *minWalk) visit(k int, i uint32, t btf.Type, level uint8) error {
	if m.level(k, i) >= level {
		return nil
	}
	if !m.marks[k].has(i) {
		if m.n++; m.n > wire.MaxTypeID {
			if m.fwd {
				return pkgerr.Errorf("builder: copy %v: %w", t, ErrTooManyTypes)
			}
			return ErrTooManyTypes
		}
		m.marks[k].set(i)
	}
	pointee := false
	if m.fwd {
		pointee = level == levelPointee && namedComposite(t)
		switch {
		case level == levelValue:
			m.values[k].set(i)
			m.fwds[k].unset(i)
		case pointee:
			m.fwds[k].set(i)
		}
	}
	if !pointee {
		m.stack = append(m.stack, uint32(t.ID())<<1|uint32(level-levelPointee))
	} else {
		m.nameBytes += len(m.srcs[k].str(t.NameOffset())) + 1
	}
	return nil
}

// walk visits the references of the queued types until the closure is
// complete, reading the records in place.
func (m *minWalk) walk() error {
	for len(m.stack) > 0 {
		top := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		id, level := btf.TypeID(top>>1), levelPointee+uint8(top&1)
		k, _, err := m.locate(id)
		if err != nil {
			return err
		}
		t, err := m.srcs[k].spec.TypeByID(id)
		if err != nil {
			return err
		}
		rec := t.Record()
		if rec == nil {
			return btf.ErrClosed
		}
		info := wire.Record(rec).Info()
		kind := wire.InfoKind(info)
		if int(kind) >= wire.NumKinds {
			return fmt.Errorf("builder: copy %v: cannot write kind %d", t, kind)
		}
		m.elems += wire.InfoVlen(info)
		m.recBytes += len(rec)
		m.walked++
		src := m.srcs[k]
		wire.Record(rec).ForNames(func(at uint32) {
			m.nameBytes += len(src.str(wire.Word(rec, at))) + 1
		})
		lv := childLevel(btf.Kind(kind), level)
		wire.Record(rec).ForRefs(func(at uint32) {
			if err == nil {
				err = m.ref(btf.TypeID(wire.Word(rec, at)), lv)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ref visits the type that a record refers to. Types already walked at
// that level are skipped before their record is looked up.
func (m *minWalk) ref(r btf.TypeID, level uint8) error {
	if r == 0 {
		return nil
	}
	k, i, err := m.locate(r)
	if err != nil {
		return err
	}
	if m.level(k, i) >= level {
		return nil
	}
	t, err := m.srcs[k].spec.TypeByID(r)
	if err != nil {
		return err
	}
	return m.visit(k, i, t, level)
}

// number gives the types reached their ids in the sources' id maps, from
// first on, in output order, as a fresh Builder's copy numbers them.
func (m *minWalk) number(first btf.TypeID) {
	for k, src := range m.srcs {
		prefix, n := m.marks[k].ranks()
		if n == 0 {
			continue
		}
		src.ids = idMap{numbered: m.marks[k], prefix: prefix, first: first}
		if m.fwd && !m.fwds[k].empty() {
			src.ids.fwdBits = m.fwds[k]
		}
		first += btf.TypeID(n)
	}
}

// each calls fn on every type reached, in output order, with its source
// (its index in m.srcs) and whether it is written as a FWD.
func (m *minWalk) each(fn func(k int, t btf.Type, asFwd bool) error) error {
	for k, src := range m.srcs {
		for w, word := range m.marks[k] {
			for ; word != 0; word &= word - 1 {
				i := uint32(w*64 + bits.TrailingZeros64(word))
				t, err := src.spec.TypeByID(src.first + btf.TypeID(i))
				if err != nil {
					return err
				}
				if err := fn(k, t, m.fwd && m.fwds[k].has(i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// empty reports whether no bit of s is set.
func (s bitset) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

func namedComposite(t btf.Type) bool {
	return t.IsComposite() && t.NameOffset() != 0
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
