package btf

import "github.com/kmeta-dev/kmeta/btf/internal/wire"

// checkRefs checks the type ids and string offsets that the record of type
// id at off refers to. Bounds were checked by checkRecord.
func (s *Spec) checkRefs(id TypeID, off, info uint32) error {
	last := s.LastID()
	strEnd := s.strEnd()
	rec := s.types[off:]
	name := wire.Word(rec, 0)
	if name >= strEnd {
		return typeErr(id, off, "name offset %d outside the string section (size %d)", name, strEnd)
	}
	ref := func(what string, t uint32) error {
		if TypeID(t) > last {
			return typeErr(id, off, "%s refers to type %d, beyond the last type %d", what, t, last)
		}
		return nil
	}
	strAt := func(what string, o uint32) error {
		if o >= strEnd {
			return typeErr(id, off, "%s name offset %d outside the string section (size %d)", what, o, strEnd)
		}
		return nil
	}
	vlen := uint32(wire.InfoVlen(info))
	kind := wire.InfoKind(info)
	switch kind {
	case wire.KindPointer, wire.KindTypedef, wire.KindVolatile, wire.KindConst, wire.KindRestrict,
		wire.KindFunc, wire.KindVar, wire.KindDeclTag, wire.KindTypeTag, wire.KindFuncProto:
		if err := ref("type", wire.Word(rec, 8)); err != nil {
			return err
		}
	case wire.KindArray:
		if err := ref("element type", wire.Word(rec, 12)); err != nil {
			return err
		}
		return ref("index type", wire.Word(rec, 16))
	}
	switch kind {
	case wire.KindStruct, wire.KindUnion:
		for i := range vlen {
			m := rec[wire.TypeSize+12*i:]
			if err := strAt("member", wire.Word(m, 0)); err != nil {
				return err
			}
			if err := ref("member", wire.Word(m, 4)); err != nil {
				return err
			}
		}
	case wire.KindEnum, wire.KindEnum64:
		es := uint32(s.layouts[kind].ElemSize)
		for i := range vlen {
			if err := strAt("enumerator", wire.Word(rec, wire.TypeSize+es*i)); err != nil {
				return err
			}
		}
	case wire.KindFuncProto:
		for i := range vlen {
			p := rec[wire.TypeSize+8*i:]
			if err := strAt("parameter", wire.Word(p, 0)); err != nil {
				return err
			}
			if err := ref("parameter", wire.Word(p, 4)); err != nil {
				return err
			}
		}
	case wire.KindDatasec:
		for i := range vlen {
			if err := ref("variable", wire.Word(rec, wire.TypeSize+12*i)); err != nil {
				return err
			}
		}
	}
	return nil
}
