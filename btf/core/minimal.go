package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// ErrUnsupportedKind is returned by TypesFor when a relocation reaches a
// kind that bpftool's min_core_btf cannot copy (a DECL_TAG, a TYPE_TAG
// reached through a followed pointer, a FUNC, a VAR...).
var ErrUnsupportedKind = errors.New("core: unsupported kind")

// marker records which target types and members the relocations use: what
// bpftool's btfgen marks in its clone of the target BTF. The sets are
// maps: a few dozen types of a vmlinux's hundred thousand are marked,
// and bit sets over all ids would allocate far more for the same time
// (BenchmarkMinimalFile, BENCH.md).
type marker struct {
	s       *btf.Spec
	flags   map[btf.TypeID]uint8 // marked types: markedBit and the walk states
	members map[btf.TypeID]bitset
}

// Flags of a type in marker.flags.
const (
	markedBit uint8 = 1 << iota // the type is kept
	followBit                   // walked by markType with pointers followed
	walkedBit                   // walked by markType without
	matchVBit                   // walked by markTypeMatch, not behind a pointer
	matchPBit                   // walked by markTypeMatch behind a pointer
)

type bitset []uint64

func newBitset(n int) bitset       { return make(bitset, (n+63)/64) }
func (b bitset) has(i uint32) bool { return i/64 < uint32(len(b)) && b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i uint32)      { b[i/64] |= 1 << (i % 64) }

func newMarker(s *btf.Spec) *marker {
	return &marker{s: s, flags: map[btf.TypeID]uint8{}, members: map[btf.TypeID]bitset{}}
}

// has reports whether type id has all the flags f; set adds them.
func (m *marker) has(id btf.TypeID, f uint8) bool { return m.flags[id]&f == f }
func (m *marker) set(id btf.TypeID, f uint8)      { m.flags[id] |= f }

func (m *marker) markMember(id btf.TypeID, idx int) {
	bs := m.members[id]
	if bs == nil {
		t, _ := m.s.TypeByID(id)
		bs = newBitset(t.Vlen())
		m.members[id] = bs
	}
	bs.set(uint32(idx))
}

func unsupported(t btf.Type) error {
	return fmt.Errorf("%w: %s (%d)", ErrUnsupportedKind, kindStr(t.Kind()), t.ID())
}

// markType is btfgen_mark_type: mark id and what it needs, following
// pointers only if follow is set. Each type is walked once per mode,
// which marks the same as bpftool's unbounded recursion.
func (m *marker) markType(id btf.TypeID, follow bool) error {
	if id == 0 {
		return nil
	}
	if m.has(id, followBit) || (!follow && m.has(id, walkedBit)) {
		return nil
	}
	t, err := m.s.TypeByID(id)
	if err != nil {
		return err
	}
	if follow {
		m.set(id, markedBit|followBit)
	} else {
		m.set(id, markedBit|walkedBit)
	}
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat, btf.KindEnum, btf.KindEnum64, btf.KindStruct, btf.KindUnion:
	case btf.KindPointer:
		if follow {
			return m.markType(t.Ref(), follow)
		}
	case btf.KindConst, btf.KindRestrict, btf.KindVolatile, btf.KindTypedef:
		return m.markType(t.Ref(), follow)
	case btf.KindArray:
		a := t.Array()
		if err := m.markType(a.Type, follow); err != nil {
			return err
		}
		return m.markType(a.Index, follow)
	case btf.KindFuncProto:
		if err := m.markType(t.Ref(), follow); err != nil {
			return err
		}
		for _, p := range t.Params() {
			if err := m.markType(p.Type, follow); err != nil {
				return err
			}
		}
	default:
		return unsupported(t)
	}
	return nil
}

// markField is btfgen_record_field_relo: the root, and along the target
// spec's path each member used and its type.
func (m *marker) markField(spec *coreSpec) error {
	id := spec.root
	if err := m.markType(id, false); err != nil {
		return err
	}
	t, _ := m.s.TypeByID(id)
	for i := 1; i < spec.rawLen; i++ {
		for n := 0; isModOrTypedef(t.Kind()); n++ {
			if n > maxDepth {
				return fmt.Errorf("%w: type chain deeper than %d", ErrInvalid, maxDepth)
			}
			id = t.Ref()
			t, _ = m.s.TypeByID(id)
		}
		switch t.Kind() {
		case btf.KindStruct, btf.KindUnion:
			idx := int(spec.raw[i])
			m.markMember(id, idx)
			id = t.Member(idx).Type
			t, _ = m.s.TypeByID(id)
			if err := m.markType(id, false); err != nil {
				return err
			}
		case btf.KindArray:
			id = t.Array().Type
			t, _ = m.s.TypeByID(id)
		default:
			return unsupported(t)
		}
	}
	return nil
}

func isModOrTypedef(k btf.Kind) bool {
	switch k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag, btf.KindTypedef:
		return true
	}
	return false
}

// markTypeMatch is btfgen_mark_type_match: like markType, but members of
// composites reached by value are marked too, and pointers are followed up
// to the composites behind them.
func (m *marker) markTypeMatch(id btf.TypeID, behindPtr bool) error {
	if id == 0 {
		return nil
	}
	seen := matchVBit
	if behindPtr {
		seen = matchPBit
	}
	if m.has(id, seen) {
		return nil
	}
	t, err := m.s.TypeByID(id)
	if err != nil {
		return err
	}
	m.set(id, markedBit|seen)
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat, btf.KindEnum, btf.KindEnum64:
	case btf.KindStruct, btf.KindUnion:
		if behindPtr {
			return nil
		}
		for i, mb := range t.Members() {
			m.markMember(id, i)
			if err := m.markTypeMatch(mb.Type, false); err != nil {
				return err
			}
		}
	case btf.KindConst, btf.KindForward, btf.KindRestrict, btf.KindTypedef, btf.KindVolatile:
		return m.markTypeMatch(t.Ref(), behindPtr)
	case btf.KindPointer:
		return m.markTypeMatch(t.Ref(), true)
	case btf.KindArray:
		a := t.Array()
		if err := m.markTypeMatch(a.Type, false); err != nil {
			return err
		}
		return m.markTypeMatch(a.Index, false)
	case btf.KindFuncProto:
		if err := m.markTypeMatch(t.Ref(), false); err != nil {
			return err
		}
		for _, p := range t.Params() {
			if err := m.markTypeMatch(p.Type, false); err != nil {
				return err
			}
		}
	default:
		return unsupported(t)
	}
	return nil
}

// record is btfgen_record_reloc for one resolved relocation.
func (m *marker) record(oc *outcome) error {
	if !oc.matched {
		return nil // bpftool's zeroed target spec marks nothing
	}
	spec := &oc.targ
	switch k := spec.kind; {
	case k.IsField():
		return m.markField(spec)
	case k == ext.TypeIDLocal:
		return nil
	case k == ext.TypeMatches:
		return m.markTypeMatch(spec.root, false)
	case k.IsType():
		return m.markType(spec.root, true)
	case k.IsEnumval():
		return m.markType(spec.root, false)
	}
	return fmt.Errorf("%w: kind %d", ErrInvalid, uint32(spec.kind))
}

// recordObject is btfgen_record_obj: every relocation of obj, in order,
// with a candidate cache of its own; the first that fails stops it. A
// record that repeats one recorded already (reloKey) marks nothing new.
func (m *marker) recordObject(ctx context.Context, obj *Object, t *Target) error {
	cache := map[btf.TypeID]*candList{}
	var members memberIndexes
	var done memo[*candList]
	for _, sec := range obj.Ext.Sections(ext.CORERelos) {
		if ctx != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		for i, r := range sec.CORERelos() {
			if i%ctxStride == ctxStride-1 && ctx != nil && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			cands := candsFor(obj, r.TypeID, t, cache)
			key := reloKey{id: r.TypeID, off: r.AccessStrOff, kind: r.Kind, cands: cands}
			if after, ok := done.get(key); ok {
				// the same calculation, recorded already
				if r.Kind != ext.TypeIDLocal {
					cache[r.TypeID] = after
				}
				continue
			}
			var oc outcome
			err := calcReloInsn(obj.BTF, r, &cands, &members, &oc)
			if r.Kind != ext.TypeIDLocal {
				cache[r.TypeID] = cands
			}
			if err == nil {
				err = m.record(&oc)
			}
			if err != nil {
				return pkgerr.Errorf("core: %s relo #%d: %w", sec.Name, i, err)
			}
			done.put(key, cands)
		}
	}
	return nil
}
