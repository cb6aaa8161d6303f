package btf

import (
	"iter"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Member is a member of a STRUCT or UNION.
type Member struct {
	spec         *Spec
	nameOff      uint32
	Type         TypeID
	BitOffset    uint32 // offset from the start of the composite, in bits
	BitfieldSize uint32 // 0 unless the member is a bitfield
}

// Member returns the i-th member of a STRUCT or UNION; the zero Member if t
// is of another kind or i is out of range.
func (t Type) Member(i int) Member {
	r, ok := t.elem(i, compositeKinds)
	if !ok {
		return Member{}
	}
	name, typ, off := r.Member(i)
	m := Member{spec: t.spec, nameOff: name, Type: TypeID(typ), BitOffset: off}
	if r.KindFlag() {
		m.BitfieldSize = wire.MemberBitfieldSize(m.BitOffset)
		m.BitOffset = wire.MemberBitOffset(m.BitOffset)
	}
	return m
}

// Members iterates over the members of a STRUCT or UNION, with their index.
func (t Type) Members() iter.Seq2[int, Member] {
	// A closure over t alone, so that a range loop over it does not allocate.
	return func(yield func(int, Member) bool) {
		for i := range t.vlenOf(compositeKinds) {
			if !yield(i, t.Member(i)) {
				return
			}
		}
	}
}

// NameBytes returns the member's name without copying; nil if anonymous.
// Valid until the Spec is closed.
func (m Member) NameBytes() []byte { return strBytes(m.spec, m.nameOff) }

// Name returns a copy of the member's name; "" if anonymous.
func (m Member) Name() string { return string(m.NameBytes()) }

// Param is a parameter of a FUNC_PROTO.
type Param struct {
	spec    *Spec
	nameOff uint32
	Type    TypeID // 0 for the "..." of a variadic function
}

// Param returns the i-th parameter of a FUNC_PROTO; the zero Param if t is
// of another kind or i is out of range.
func (t Type) Param(i int) Param {
	r, ok := t.elem(i, protoKinds)
	if !ok {
		return Param{}
	}
	name, typ := r.Param(i)
	return Param{spec: t.spec, nameOff: name, Type: TypeID(typ)}
}

// Params iterates over the parameters of a FUNC_PROTO, with their index.
func (t Type) Params() iter.Seq2[int, Param] {
	// A closure over t alone, so that a range loop over it does not allocate.
	return func(yield func(int, Param) bool) {
		for i := range t.vlenOf(protoKinds) {
			if !yield(i, t.Param(i)) {
				return
			}
		}
	}
}

// NameBytes returns the parameter's name without copying; nil if unnamed.
// Valid until the Spec is closed.
func (p Param) NameBytes() []byte { return strBytes(p.spec, p.nameOff) }

// Name returns a copy of the parameter's name; "" if unnamed.
func (p Param) Name() string { return string(p.NameBytes()) }

// EnumValue is an enumerator of an ENUM or ENUM64.
type EnumValue struct {
	spec    *Spec
	nameOff uint32
	// Value holds the raw bits: the low 32 for ENUM, all 64 for ENUM64.
	Value  uint64
	Signed bool // the enum's kind_flag
	Is64   bool // from an ENUM64
}

// EnumValue returns the i-th enumerator of an ENUM or ENUM64; the zero
// EnumValue if t is of another kind or i is out of range.
func (t Type) EnumValue(i int) EnumValue {
	r, ok := t.elem(i, enumKinds)
	if !ok {
		return EnumValue{}
	}
	name, val := r.Enum(i)
	return EnumValue{spec: t.spec, nameOff: name, Value: val, Signed: r.KindFlag(), Is64: r.Kind() == wire.KindEnum64}
}

// EnumValues iterates over the enumerators of an ENUM or ENUM64.
func (t Type) EnumValues() iter.Seq2[int, EnumValue] {
	// A closure over t alone, so that a range loop over it does not allocate.
	return func(yield func(int, EnumValue) bool) {
		for i := range t.vlenOf(enumKinds) {
			if !yield(i, t.EnumValue(i)) {
				return
			}
		}
	}
}

// Int64 returns the value as a signed number: a 32-bit ENUM value is sign
// extended.
func (v EnumValue) Int64() int64 {
	if !v.Is64 {
		return int64(int32(uint32(v.Value)))
	}
	return int64(v.Value)
}

// NameBytes returns the enumerator's name without copying. Valid until the
// Spec is closed.
func (v EnumValue) NameBytes() []byte { return strBytes(v.spec, v.nameOff) }

// Name returns a copy of the enumerator's name.
func (v EnumValue) Name() string { return string(v.NameBytes()) }

// VarSecinfo is a variable of a DATASEC.
type VarSecinfo struct {
	Type   TypeID
	Offset uint32
	Size   uint32
}

// VarSecinfo returns the i-th variable of a DATASEC; the zero VarSecinfo if
// t is of another kind or i is out of range.
func (t Type) VarSecinfo(i int) VarSecinfo {
	r, ok := t.elem(i, datasecKinds)
	if !ok {
		return VarSecinfo{}
	}
	typ, off, size := r.Secinfo(i)
	return VarSecinfo{Type: TypeID(typ), Offset: off, Size: size}
}

// VarSecinfos iterates over the variables of a DATASEC.
func (t Type) VarSecinfos() iter.Seq2[int, VarSecinfo] {
	// A closure over t alone, so that a range loop over it does not allocate.
	return func(yield func(int, VarSecinfo) bool) {
		for i := range t.vlenOf(datasecKinds) {
			if !yield(i, t.VarSecinfo(i)) {
				return
			}
		}
	}
}

func (t Type) vlenOf(set kindSet) int {
	info := t.record().Info()
	if set&(1<<wire.InfoKind(info)) == 0 {
		return 0
	}
	return wire.InfoVlen(info)
}

func strBytes(s *Spec, off uint32) []byte {
	if s == nil || !s.alive() {
		return nil
	}
	b, _ := s.str(off)
	if len(b) == 0 {
		return nil
	}
	return b
}
