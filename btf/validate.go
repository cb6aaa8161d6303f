package btf

import "github.com/kmeta-dev/kmeta/btf/internal/wire"

// validator checks the type ids and string offsets that records refer to.
type validator struct {
	s      *Spec
	last   uint32 // largest valid type id
	strEnd uint32 // first string offset past the string space
}

func (s *Spec) newValidator() validator {
	return validator{s: s, strEnd: s.strEnd()}
}

// check checks the record of type id at off. Bounds were checked before.
func (v *validator) check(id TypeID, off, info uint32) error {
	rec := v.s.types[off:]
	if name := wire.Word(rec, 0); name >= v.strEnd {
		return typeErr(id, off, "name offset %d outside the string section (size %d)", name, v.strEnd)
	}
	vlen := uint32(wire.InfoVlen(info))
	switch kind := wire.InfoKind(info); kind {
	case wire.KindInt, wire.KindForward, wire.KindFloat:
	case wire.KindPointer, wire.KindTypedef, wire.KindVolatile, wire.KindConst, wire.KindRestrict,
		wire.KindFunc, wire.KindVar, wire.KindDeclTag, wire.KindTypeTag:
		return v.ref(id, off, "type", wire.Word(rec, 8))
	case wire.KindArray:
		if err := v.ref(id, off, "element type", wire.Word(rec, 12)); err != nil {
			return err
		}
		return v.ref(id, off, "index type", wire.Word(rec, 16))
	case wire.KindStruct, wire.KindUnion:
		return v.elems(id, off, rec, vlen, 12, 0, 4, "member")
	case wire.KindEnum:
		return v.elems(id, off, rec, vlen, 8, 0, -1, "enumerator")
	case wire.KindEnum64:
		return v.elems(id, off, rec, vlen, 12, 0, -1, "enumerator")
	case wire.KindFuncProto:
		if err := v.ref(id, off, "return type", wire.Word(rec, 8)); err != nil {
			return err
		}
		return v.elems(id, off, rec, vlen, 8, 0, 4, "parameter")
	case wire.KindDatasec:
		return v.elems(id, off, rec, vlen, 12, -1, 0, "variable")
	}
	return nil
}

// elems checks vlen elements of size es after the fixed part, each with a
// name at byte nameAt and a type at typeAt (-1 for none).
func (v *validator) elems(id TypeID, off uint32, rec []byte, vlen, es uint32, nameAt, typeAt int, what string) error {
	e := rec[wire.TypeSize:][:vlen*es]
	for i := uint32(0); i < vlen*es; i += es {
		if nameAt >= 0 {
			if o := wire.Word(e, i+uint32(nameAt)); o >= v.strEnd {
				return typeErr(id, off, "%s %d name offset %d outside the string section (size %d)", what, i/es, o, v.strEnd)
			}
		}
		if typeAt >= 0 {
			if t := wire.Word(e, i+uint32(typeAt)); t > v.last {
				return typeErr(id, off, "%s %d refers to type %d, beyond the last type %d", what, i/es, t, v.last)
			}
		}
	}
	return nil
}

func (v *validator) ref(id TypeID, off uint32, what string, t uint32) error {
	if t > v.last {
		return typeErr(id, off, "%s refers to type %d, beyond the last type %d", what, t, v.last)
	}
	return nil
}

// maxRefs accumulates the largest type id and string offset that records
// refer to, without branching on each one.
type maxRefs struct {
	typ, str uint32
}

// add notes the references of one record; rec holds exactly the record.
func (m *maxRefs) add(rec []byte, info uint32) {
	m.str = max(m.str, wire.Word(rec, 0))
	switch wire.InfoKind(info) {
	case wire.KindPointer, wire.KindTypedef, wire.KindVolatile, wire.KindConst, wire.KindRestrict,
		wire.KindFunc, wire.KindVar, wire.KindDeclTag, wire.KindTypeTag:
		m.typ = max(m.typ, wire.Word(rec, 8))
	case wire.KindArray:
		m.typ = max(m.typ, wire.Word(rec, 12), wire.Word(rec, 16))
	case wire.KindStruct, wire.KindUnion:
		for e := rec[wire.TypeSize:]; len(e) >= 12; e = e[12:] {
			m.str = max(m.str, wire.Word(e, 0))
			m.typ = max(m.typ, wire.Word(e, 4))
		}
	case wire.KindEnum:
		for e := rec[wire.TypeSize:]; len(e) >= 8; e = e[8:] {
			m.str = max(m.str, wire.Word(e, 0))
		}
	case wire.KindEnum64:
		for e := rec[wire.TypeSize:]; len(e) >= 12; e = e[12:] {
			m.str = max(m.str, wire.Word(e, 0))
		}
	case wire.KindFuncProto:
		m.typ = max(m.typ, wire.Word(rec, 8))
		for e := rec[wire.TypeSize:]; len(e) >= 8; e = e[8:] {
			m.str = max(m.str, wire.Word(e, 0))
			m.typ = max(m.typ, wire.Word(e, 4))
		}
	case wire.KindDatasec:
		for e := rec[wire.TypeSize:]; len(e) >= 12; e = e[12:] {
			m.typ = max(m.typ, wire.Word(e, 0))
		}
	}
}
