package dedup

import (
	"bytes"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// builderSource is the Builder whose records were appended last, so that
// its next records continue it: the same id shift and string keys.
type builderSource struct {
	b     *builder.Builder
	next  btf.TypeID // the Builder's id of the first record not appended yet
	shift uint32     // Merger id = Builder id + shift, for own ids
	keys  []uint32   // 1+ the key of the Builder's own string at each offset
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
	src := &m.src
	if src.b != b || first != src.next {
		if first != b.FirstID() {
			return fmt.Errorf("dedup: the Builder forgot types [%d, %d) that were never appended", b.FirstID(), first)
		}
		*src = builderSource{b: b, shift: m.d.first + m.d.n() - uint32(first), keys: src.keys[:0]}
	}
	n, err := m.appendRecords(types, b, src)
	src.next = first + btf.TypeID(n)
	if err == nil && m.d.pipe != nil {
		m.d.advance(m.maxRef)
	}
	return err
}

// appendRecords appends the Builder's records in types and returns how
// many it appended; on error, none.
func (m *Merger) appendRecords(types []byte, b *builder.Builder, src *builderSource) (int, error) {
	strs, strStart := b.Strings()
	if n, have := len(strs), len(src.keys); have < n {
		// One word per byte of the Builder's strings, megabytes for a
		// vmlinux's encoding: outside the Go heap, as the records.
		src.keys = growMapped(src.keys, n-have, &m.d.recs.mem.keys)[:n]
		clear(src.keys[have:])
	}
	rs := &m.d.recs
	mark, strMark := rs.off.len(), m.d.strs.Own.Len()
	rs.reserve(len(types)/4, len(types)/(4*wHead))
	own, maxRef := uint32(b.FirstID()), m.maxRef
	n := 0
	fail := func(err error) (int, error) {
		rs.truncate(mark)
		m.d.strs.Own.Truncate(strMark)
		return 0, err
	}
	for off := 0; off < len(types); n++ {
		var err error
		size, ok := uint32(wire.TypeSize), len(types)-off >= wire.TypeSize
		if ok {
			size, ok = wire.DefaultLayouts.RecordSize(wire.Record(types[off:]).Info())
		}
		if !ok || int(size) > len(types)-off {
			err = fmt.Errorf("record of %d bytes past the end", size)
		} else {
			err = appendRecord(rs, types[off:off+int(size)])
		}
		if err != nil {
			return fail(fmt.Errorf("dedup: Builder's type [%d]: %w", m.d.first+m.d.n()-src.shift, err))
		}
		off += int(size)
		r := rs.rec(rs.len() - 1)
		r.ForRefs(func(i uint32) {
			if r[i] >= own {
				r[i] += src.shift
				maxRef = max(maxRef, r[i])
			}
		})
		r.ForNames(func(i uint32) {
			if err != nil || r[i] < strStart || r[i] == 0 {
				return
			}
			k := r[i] - strStart
			if src.keys[k] == 0 {
				var key uint32
				key, err = m.d.strs.intern(strtab.CString(strs[k:]))
				src.keys[k] = key + 1
			}
			r[i] = src.keys[k] - 1
		})
		if err != nil {
			return fail(err)
		}
	}
	if err := m.d.room(0); err != nil {
		return fail(err)
	}
	m.maxRef = maxRef
	return n, nil
}

// room checks that n more types can be appended: libbpf allows ids up to
// 2^31-1 before deduplication; the output's limit (wire.MaxTypeID) is
// checked when it is written.
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
