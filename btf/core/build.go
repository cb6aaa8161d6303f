package core

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// TypesFor returns the smallest BTF on which every CO-RE relocation of objs
// resolves as on t, made as bpftool gen min_core_btf (bpftool 7.1) makes
// it: the relocations of each object are resolved in order (an error in
// any stops it), and the target types and members they use are kept:
//
//   - field relocations keep the root type and, along the access path,
//     each member used and its type (pointers are kept, their pointees
//     only if something else keeps them);
//   - type relocations (existence, size, target id) keep the type with
//     pointers followed, structs and unions without members;
//   - type_matches keeps the type, the members of composites reached by
//     value and what they need, up to the composites behind pointers;
//   - enum relocations keep the whole enum.
//
// The kept types are written in their target order, numbered from 1;
// structs and unions keep only their kept members, and references to
// types not kept become void. Strings are in order of first use. The raw
// dump of the result is bpftool's. t may hold at most one module (a
// split BTF on the main one): ids must be one space. A record of a lazily
// opened target (btf.Options.Lazy) that fails its check when it is
// read makes TypesFor return that error.
func TypesFor(ctx context.Context, t *Target, objs []Object) (b *builder.Builder, err error) {
	defer func() {
		if lerr := t.err(); lerr != nil {
			b, err = nil, lerr
		}
	}()
	t.mu.Lock()
	if t.load != nil {
		t.modules, t.load = t.load(), nil
	}
	t.mu.Unlock()
	s := t.main
	switch len(t.modules) {
	case 0:
	case 1:
		s = t.modules[0]
	default:
		return nil, errors.New("core: minimal BTF on a target with more than one module")
	}
	m := newMarker(s)
	for i := range objs {
		t.prepare(wants(&objs[i]))
		if err := m.recordObject(ctx, &objs[i], t); err != nil {
			return nil, err
		}
	}
	return m.build()
}

// build is btfgen_get_btf: the marked types, in id order, into a new
// Builder, strings added in libbpf's order (a record's name, then its
// elements' names).
func (m *marker) build() (*builder.Builder, error) {
	order := make([]btf.TypeID, 0, len(m.flags))
	for id, f := range m.flags {
		if f&markedBit != 0 {
			order = append(order, id)
		}
	}
	slices.Sort(order)
	ids := make(map[btf.TypeID]btf.TypeID, len(order))
	for i, id := range order {
		ids[id] = btf.TypeID(i + 1)
	}
	b := builder.New()
	for _, id := range order {
		t, err := m.s.TypeByID(id)
		if err != nil {
			return nil, err
		}
		got, err := m.add(b, t, ids)
		if err != nil {
			return nil, fmt.Errorf("core: minimal BTF: %v: %w", t, err)
		}
		if got != ids[id] {
			return nil, fmt.Errorf("core: minimal BTF: %v got id %d, want %d", t, got, ids[id])
		}
	}
	return b, nil
}

// add copies t into b with its references renumbered by ids.
func (m *marker) add(b *builder.Builder, t btf.Type, ids map[btf.TypeID]btf.TypeID) (btf.TypeID, error) {
	ref := func(id btf.TypeID) btf.TypeID { return ids[id] }
	name := t.Name()
	if _, err := b.AddString(name); err != nil {
		return 0, err
	}
	switch t.Kind() {
	case btf.KindStruct, btf.KindUnion:
		return m.addComposite(b, t, name, ref)
	case btf.KindInt:
		return b.AddInt(name, t.Size(), t.Int())
	case btf.KindFloat:
		return b.AddFloat(name, t.Size())
	case btf.KindEnum, btf.KindEnum64:
		vals := make([]builder.Enumerator, 0, t.Vlen())
		for _, v := range t.EnumValues() {
			vals = append(vals, builder.Enumerator{Name: v.Name(), Value: v.Value})
			if _, err := b.AddString(v.Name()); err != nil {
				return 0, err
			}
		}
		if t.Kind() == btf.KindEnum64 {
			return b.AddEnum64(name, t.Size(), t.KindFlag(), vals)
		}
		return b.AddEnum(name, t.Size(), t.KindFlag(), vals)
	case btf.KindForward:
		return b.AddForward(name, t.IsUnionForward())
	case btf.KindPointer:
		return b.AddPointer(ref(t.Ref()))
	case btf.KindTypedef:
		return b.AddTypedef(name, ref(t.Ref()))
	case btf.KindConst:
		return b.AddConst(ref(t.Ref()))
	case btf.KindVolatile:
		return b.AddVolatile(ref(t.Ref()))
	case btf.KindRestrict:
		return b.AddRestrict(ref(t.Ref()))
	case btf.KindArray:
		a := t.Array()
		return b.AddArray(btf.ArrayInfo{Type: ref(a.Type), Index: ref(a.Index), Nelems: a.Nelems})
	case btf.KindFuncProto:
		ps := make([]builder.Param, 0, t.Vlen())
		for _, p := range t.Params() {
			ps = append(ps, builder.Param{Name: p.Name(), Type: ref(p.Type)})
			if _, err := b.AddString(p.Name()); err != nil {
				return 0, err
			}
		}
		return b.AddFuncProto(ref(t.Ref()), ps)
	}
	return 0, unsupported(t)
}

// addComposite is the struct and union part of btfgen_get_btf: only the
// marked members, checked as libbpf's btf__add_field checks them.
func (m *marker) addComposite(b *builder.Builder, t btf.Type, name string, ref func(btf.TypeID) btf.TypeID) (btf.TypeID, error) {
	used := m.members[t.ID()]
	var ms []builder.Member
	for i, mb := range t.Members() {
		if !used.has(uint32(i)) {
			continue
		}
		if mb.BitfieldSize == 0 && mb.BitOffset%8 != 0 {
			return 0, fmt.Errorf("member %d at bit offset %d is not a byte boundary", i, mb.BitOffset)
		}
		if t.Kind() == btf.KindUnion && mb.BitOffset != 0 {
			return 0, fmt.Errorf("union member %d at bit offset %d", i, mb.BitOffset)
		}
		n := mb.Name()
		if _, err := b.AddString(n); err != nil {
			return 0, err
		}
		ms = append(ms, builder.Member{Name: n, Type: ref(mb.Type), BitOffset: mb.BitOffset, BitfieldSize: mb.BitfieldSize})
	}
	if t.Kind() == btf.KindUnion {
		return b.AddUnion(name, t.Size(), ms)
	}
	return b.AddStruct(name, t.Size(), ms)
}
