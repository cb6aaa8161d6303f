package diff

import (
	"bytes"
	"hash/maphash"
	"slices"
	"strconv"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
)

// factWalker spells the facts of a struct or union one at a time, as
// signature would spell them: its size, then a fact for each member,
// members of anonymous structs and unions flattened into the struct that
// holds them. It walks the members with a stack of its own, not by
// recursion, and holds one fact and the path of the levels it is in:
// what it holds grows with the depth, never with the number of members,
// so that two structs of 65,535 members, or 4,095 levels of 33, are
// compared without holding their signatures (issue 37).
type factWalker struct {
	sd      *side
	values  bool // spell values; names alone otherwise
	noNames bool // spell values alone (name stays empty)
	// skipNames holds facts (by index) whose names are not spelled
	// (left empty), as with noNames.
	skipNames bits
	size      uint32
	first     bool // the size fact is next
	stack     []level
	path      []byte // the paths of every level, each past its parent's
	// name and value are the current fact's: valid until next is
	// called again.
	name, value []byte
	at          int // how many facts the walk has made current
	// member1 is the current fact's member, spelled or not (for a
	// fact other than the size).
	member1 memberValue
	err     error
}

// level is one struct or union that the walk is in.
type level struct {
	t    btf.Type
	next int // the next member
	// pending is a named member of anonymous type whose own fact comes
	// once the facts of its members have (-1 for none).
	pending int
	path    int    // this level's path is path[:path]
	base    uint32 // the level's bit offset in the outermost struct
}

// walker returns a factWalker over the facts of composite t; with values
// false it spells the facts' names alone (value stays empty).
func (sd *side) walker(t btf.Type, values bool) *factWalker {
	w := &factWalker{sd: sd, values: values}
	w.reset(t)
	return w
}

// reset starts the walk over at the first fact of t.
func (w *factWalker) reset(t btf.Type) {
	w.sd.spelling = t.ID()
	w.size, w.first, w.err, w.at = t.Size(), true, nil, 0
	w.stack = append(w.stack[:0], level{t: t, pending: -1})
	w.path = w.path[:0]
}

// next moves to the next fact, and reports whether there is one: false at
// the end, and on an error, which error returns.
func (w *factWalker) next() bool {
	if !w.step() {
		return false
	}
	w.at++
	return true
}

// step is next without the count of facts.
func (w *factWalker) step() bool {
	if w.first {
		w.first = false
		w.name = append(w.name[:0], "size"...)
		w.value = strconv.AppendUint(w.value[:0], uint64(w.size), 10)
		return true
	}
	for len(w.stack) > 0 && w.err == nil {
		top := &w.stack[len(w.stack)-1]
		if i := top.pending; i >= 0 {
			top.pending = -1
			w.member(top, i, top.t.Member(i))
			return w.err == nil
		}
		if top.next == top.t.Vlen() {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		i := top.next
		top.next++
		m := top.t.Member(i)
		mt, err := w.sd.spec.TypeByID(m.Type)
		if err != nil {
			w.err = err
			return false
		}
		if !mt.IsComposite() || mt.NameOffset() != 0 {
			w.member(top, i, m)
			return w.err == nil
		}
		// An anonymous struct or union: its members first, then,
		// when it is named, its own fact.
		if len(w.stack) > maxFlatten {
			w.err = errTooDeep
			return false
		}
		inner := top.path
		if name := m.NameBytes(); len(name) > 0 {
			if top.path+len(name) >= w.sd.bound() {
				w.err = errTooLong
				return false
			}
			w.path = append(append(w.path[:top.path], name...), '.')
			inner = len(w.path)
			top.pending = i
		}
		w.stack = append(w.stack, level{t: mt, pending: -1, path: inner, base: top.base + m.BitOffset})
	}
	return false
}

// member makes member i of level l, m, the current fact.
func (w *factWalker) member(l *level, i int, m btf.Member) {
	if w.noNames || w.skipNames.has(w.at) {
		w.name = w.name[:0]
	} else {
		w.spellName(l, i, m)
	}
	w.member1 = memberValue{l.base + m.BitOffset, m.BitfieldSize, m.Type}
	if !w.values {
		return
	}
	w.value, w.err = w.sd.appendMemberValue(w.value[:0], w.member1)
}

// memberValue is what a member's fact's value spells: its bit offset in
// the outermost struct, its bitfield size and its type.
type memberValue struct {
	offset, bits uint32
	typ          btf.TypeID
}

// appendMemberValue appends the value of a member's fact, m.
func (sd *side) appendMemberValue(v []byte, m memberValue) ([]byte, error) {
	v = append(v, "offset "...)
	v = appendBitOffset(v, m.offset)
	if m.bits != 0 {
		v = append(v, ", "...)
		v = strconv.AppendUint(v, uint64(m.bits), 10)
		v = append(v, " bits"...)
	}
	typ, err := sd.typeName(m.typ)
	v = append(v, ", "...)
	return append(v, typ...), err
}

// spellName makes member i of level l, m, the current fact's name.
func (w *factWalker) spellName(l *level, i int, m btf.Member) {
	w.name = append(append(w.name[:0], "member "...), w.path[:l.path]...)
	if name := m.NameBytes(); len(name) > 0 {
		w.name = append(w.name, name...)
	} else {
		w.name = append(w.name, '#')
		w.name = strconv.AppendInt(w.name, int64(i), 10)
	}
}

// error returns the error that stopped the walk over t, if any, as
// signature returns it.
func (w *factWalker) error(t btf.Type) error {
	switch w.err {
	case nil:
		return nil
	case errTooDeep, errTooLong:
		return refuse(t, w.err)
	}
	return w.err
}

// streamAbove is the longest signature of a struct that a comparison holds
// whole: longer ones are compared as they are spelled (streamDiff). A
// kernel's longest takes some 40 KB. (A variable for the tests.)
var streamAbove = 256 << 10

// streamDiff is compareOne for two types that differ, one of them a
// struct or union whose signature is too long to hold: their facts are
// spelled as they are compared, each struct walked several times. A
// first walk of each keeps the hashes of its facts' names (8 bytes a
// fact), and a second, of both side by side, checks that the names they
// have in common come in the same order and once each (as they do in a
// struct that changed, and in deep nesting): then the walks that yield
// the details take the two structs side by side, the old one's facts in
// order, the new one's moving on to the fact of the same name, and then
// the new one's alone for the facts it adds. Otherwise (shared members
// moved, or a name repeated) they are compared through the hashes of
// their facts (unordered). The details are those of signatureDiff, in
// the same order; their strings are copies, or with alias (as for
// Change.more) the walkers' buffers. In step there is no
// "member_order" detail: facts in step that differ differ in some fact.
func streamDiff(a, b *side, ia, ib btf.TypeID, alias bool, details func(Detail) bool) error {
	ta, err := a.spec.TypeByID(ia)
	if err != nil {
		return err
	}
	tb, err := b.spec.TypeByID(ib)
	if err != nil {
		return err
	}
	if !ta.IsComposite() || !tb.IsComposite() {
		return held(a, b, ia, ib, details)
	}
	inB, inA, err := inStep(a, b, ta, tb)
	if err != nil {
		return err
	}
	str := func(b []byte) string { return string(b) }
	if alias {
		str = aliasString
	}
	if inB == nil {
		return unordered(a, b, ta, tb, str, details)
	}
	wa, wb := a.walker(ta, true), b.walker(tb, true)
	yield := func(change string, w *factWalker, old, new []byte) bool {
		return factDetails(change, str(w.name), str(old), str(new), details)
	}
	for i := 0; wa.next(); i++ {
		if err := a.pollSpelled(1 + (len(wa.name)+len(wa.value))/spelledBytes); err != nil {
			return err
		}
		if !inB.has(i) {
			if !yield(Removed, wa, wa.value, nil) {
				return nil
			}
			continue
		}
		// The next fact of b that a has is this one.
		for wb.next() && !inA.has(wb.at-1) {
		}
		if wb.err != nil {
			return wb.error(tb)
		}
		if !bytes.Equal(wa.value, wb.value) && !yield(Changed, wa, wa.value, wb.value) {
			return nil
		}
	}
	if wa.err != nil {
		return wa.error(ta)
	}
	wb.reset(tb)
	for j := 0; wb.next(); j++ {
		if err := b.pollSpelled(1 + (len(wb.name)+len(wb.value))/spelledBytes); err != nil {
			return err
		}
		if !inA.has(j) && !yield(Added, wb, nil, wb.value) {
			return nil
		}
	}
	return wb.error(tb)
}

// held yields the details of ia and ib from their signatures held whole.
func held(a, b *side, ia, ib btf.TypeID, details func(Detail) bool) error {
	sa, err := a.signature(nil, ia)
	if err != nil {
		return err
	}
	sb, err := b.signature(nil, ib)
	if err != nil {
		return err
	}
	signatureDiff(sa, sb, details)
	return nil
}

// walkEqual reports whether two walks spell the same facts: whether the
// signatures are equal.
func walkEqual(wa, wb *factWalker, ta, tb btf.Type) (bool, error) {
	for {
		okA, okB := wa.next(), wb.next()
		if wa.err != nil {
			return false, wa.error(ta)
		}
		if wb.err != nil {
			return false, wb.error(tb)
		}
		if err := wa.sd.pollSpelled(1 + (len(wa.name)+len(wa.value))/spelledBytes); err != nil {
			return false, err
		}
		if okA != okB || !bytes.Equal(wa.name, wb.name) || !bytes.Equal(wa.value, wb.value) {
			return false, nil
		}
		if !okA {
			return true, nil
		}
	}
}

// nameHashes returns the hashes of the names of the facts of t, sorted,
// or nil when two are equal: the names of t are not all different, or two
// hashes collide.
func nameHashes(sd *side, t btf.Type) ([]uint64, error) {
	var hs []uint64
	w := sd.walker(t, false)
	for w.next() {
		if err := sd.pollSpelled(1 + len(w.name)/spelledBytes); err != nil {
			return nil, err
		}
		if (len(hs)+1)*8 > sd.bound() {
			return nil, refuse(t, errTooMany)
		}
		hs = append(hs, maphash.Bytes(sd.seed, w.name))
	}
	if w.err != nil {
		return nil, w.error(t)
	}
	slices.Sort(hs)
	for i := 1; i < len(hs); i++ {
		if hs[i] == hs[i-1] {
			return nil, nil
		}
	}
	return hs, nil
}

// bits is a set of fact indexes.
type bits []uint64

func (s *bits) add(i int) {
	for i/64 >= len(*s) {
		*s = append(*s, 0)
	}
	(*s)[i/64] |= 1 << (i % 64)
}

func (s bits) has(i int) bool { return i/64 < len(s) && s[i/64]&(1<<(i%64)) != 0 }

// inStep finds whether the facts of ta and tb that share a name come in
// the same order on both sides, each name once on each: then one walk of
// each, side by side, finds every fact of ta in tb. If so, it returns
// which facts of ta (by index) tb has, inB, and which of tb ta has, inA
// (a bit a fact, where the hashes of the names that tell it take 64);
// otherwise nil sets. It keeps the hashes of each side's names while it
// runs, and compares the names that they match, so that a collision of
// hashes is found, not trusted: it too makes the sets nil.
func inStep(a, b *side, ta, tb btf.Type) (inB, inA bits, err error) {
	ha, err := nameHashes(a, ta)
	if err != nil || ha == nil {
		return nil, nil, err
	}
	hb, err := nameHashes(b, tb)
	if err != nil || hb == nil {
		return nil, nil, err
	}
	has := func(hs []uint64, name []byte) bool {
		_, ok := slices.BinarySearch(hs, maphash.Bytes(a.seed, name))
		return ok
	}
	wa, wb := a.walker(ta, false), b.walker(tb, false)
	inB, inA = bits{}, bits{}
	for i := 0; wa.next(); i++ {
		if err := a.pollSpelled(1 + len(wa.name)/spelledBytes); err != nil {
			return nil, nil, err
		}
		if !has(hb, wa.name) {
			continue
		}
		for {
			if !wb.next() {
				return nil, nil, wb.error(tb)
			}
			if err := b.pollSpelled(1 + len(wb.name)/spelledBytes); err != nil {
				return nil, nil, err
			}
			if bytes.Equal(wb.name, wa.name) {
				break
			}
			if has(ha, wb.name) {
				return nil, nil, nil
			}
		}
		inB.add(i)
		inA.add(wb.at - 1)
	}
	if wa.err != nil {
		return nil, nil, wa.error(ta)
	}
	for wb.next() {
		if has(ha, wb.name) {
			return nil, nil, nil
		}
	}
	return inB, inA, wb.error(tb)
}

// heldOrBig is the first pass's comparison of the single types ia of a
// and ib of b: their signatures spelled into bufs and compared, or, when
// one is longer than streamAbove (big), compared as they are spelled,
// leaving bufs empty.
func heldOrBig(a, b *side, ia, ib btf.TypeID, bufs *[2][]byte) (same, big bool, err error) {
	var errB error
	bufs[0], err = a.signatureUpTo(bufs[0][:0], ia, streamAbove)
	if err == nil {
		bufs[1], errB = b.signatureUpTo(bufs[1][:0], ib, streamAbove)
	}
	switch {
	case err == errBig || errB == errBig:
		ta, err := a.spec.TypeByID(ia)
		if err != nil {
			return false, true, err
		}
		tb, err := b.spec.TypeByID(ib)
		if err != nil {
			return false, true, err
		}
		same, err = walkEqual(a.walker(ta, true), b.walker(tb, true), ta, tb)
		return same, true, err
	case err != nil:
		return false, false, err
	case errB != nil:
		return false, false, errB
	}
	return bytes.Equal(bufs[0], bufs[1]), false, nil
}

// aliasString returns the string in b, without a copy.
func aliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
