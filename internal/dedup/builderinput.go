package dedup

import (
	"bytes"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// builderSource is the Builder whose records were appended last, so that
// its next records continue it.
type builderSource struct {
	b    *builder.Builder
	next btf.TypeID // the Builder's id of the first record not appended yet
}

// AddBuilder appends the types of b that b.Records returns, read straight
// from the Builder's records, without marshalling them. b must be
// standalone or split on the Merger's base Spec. b may go on growing
// afterwards; when only its new types are wanted, b.Forget drops those
// appended, and the next AddBuilder of b appends the rest as the
// continuation of the same input: this is how a producer of millions of
// types (a DWARF encoder) hands them over without holding them twice.
// Otherwise each call appends all of b's types as a new input.
//
// A Builder may refer to ids it has not added yet; Dedup reports an error
// if one was never added.
func (m *Merger) AddBuilder(b *builder.Builder) error {
	if m.done {
		return ErrDone
	}
	var base *btf.Spec
	if m.base != nil {
		base = m.base.spec
	}
	if b.Base() != nil && b.Base() != base {
		return fmt.Errorf("dedup: Builder on a base other than the Merger's")
	}
	types, first := b.Records()
	if (m.src.b != b || first != m.src.next) && first != b.FirstID() {
		return fmt.Errorf("dedup: the Builder forgot types [%d, %d) that were never appended", b.FirstID(), first)
	}
	// A continuation refers to the types appended before it, which were
	// appended last: they shift as the new ones (appendWordInput).
	strs, strStart := b.Strings()
	p := m.pool.get()
	p.reset(m, uint32(first), len(types)/4, len(strs))
	err := fillBuilder(p, uint32(b.FirstID()), types, first, strs, strStart)
	if err == nil {
		err = m.appendWordInput(&p.Words, &p.wordInput, 0, &p.mem.w)
	}
	n := len(p.Ends)
	p.m = nil
	m.pool.put(p)
	if err != nil {
		return err
	}
	m.src = builderSource{b: b, next: first + btf.TypeID(n)}
	if m.d.pipe != nil {
		m.d.advance(m.maxRef)
	}
	return nil
}

// fillBuilder fills p with the records of a Builder's type section,
// types, numbered from first (see filler). A record that does not fit is
// given as the rest of the section, for checkRecord to refuse.
func fillBuilder(p *Prepared, own uint32, types []byte, first btf.TypeID, strs []byte, strStart uint32) error {
	f := p.filler(own, types, strs, strStart)
	for off, id := 0, first; off < len(types); id++ {
		rest := types[off:]
		size, ok := uint32(len(rest)), len(rest) >= wire.TypeSize
		if ok {
			size, ok = wire.DefaultLayouts.RecordSize(wire.Record(rest).Info())
		}
		if !ok || int(size) > len(rest) {
			size = uint32(len(rest))
		}
		if err := f.add(id, rest[:size]); err != nil {
			return err
		}
		off += int(size)
	}
	f.done()
	return nil
}

// room checks that n more types can be appended: libbpf allows ids up to
// 2^31-1, before deduplication and after (the output keeps at most as
// many); the kernel's limit (wire.MaxTypeID) is not checked, as libbpf
// does not.
func (d *state) room(n int) error {
	if uint64(d.first)+uint64(d.n())+uint64(n) > maxID {
		return fmt.Errorf("dedup: more than %d types appended", maxID)
	}
	return nil
}

// AddString adds s to the output's strings, after those of the records
// added so far, as libbpf's btf__add_str does when a producer adds a
// string before the type that uses it, or one that no type ends up using:
// libbpf keeps such strings, in the order they came, since it does not
// rebuild the string section of BTF built from scratch (see
// btf_ensure_modifiable's strs_deduped). A string in the base, or one
// added before, is not added again.
func (m *Merger) AddString(s []byte) error {
	if m.done {
		return ErrDone
	}
	if bytes.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("dedup: string %q holds a NUL byte", s)
	}
	_, err := m.d.strs.intern(s)
	return err
}
