package btf

import (
	"strings"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Type is a view of one type record. It is a small value (a Spec pointer, the
// id and the record's offset) whose accessors decode the record in place and
// allocate nothing, except Name, which copies.
//
// The zero Type is void (id 0). Accessors that do not apply to the type's
// kind return zero values, and so does every accessor once the Spec holding
// the record has been closed. A Type is safe for concurrent use.
type Type struct {
	spec *Spec // the Spec that holds the record; nil for void
	id   TypeID
	off  uint32
}

// rec returns the record's bytes, or nil for void, after Close and for a
// record that discard or typesToFile gave back.
func (t Type) rec() []byte {
	if t.spec == nil || t.spec.closed.Load() || t.off < t.spec.discarded || t.spec.typesInFile {
		return nil
	}
	return t.spec.types[t.off:]
}

// record returns the record's bytes as a wire.Record; a zero record of the
// fixed part's size for void and after Close, so that every accessor reads
// zero.
func (t Type) record() wire.Record {
	r := t.rec()
	if r == nil {
		return zeroRecord[:]
	}
	return wire.Record(r)
}

// zeroRecord is what void's accessors read: all fields zero. It is never
// written.
var zeroRecord [wire.TypeSize + 12]byte

// ID returns the type's id; 0 for void.
func (t Type) ID() TypeID { return t.id }

// Spec returns the Spec that holds the type's record (for split BTF, the
// base or the split Spec), or nil for void.
func (t Type) Spec() *Spec { return t.spec }

// IsVoid reports whether t is the void type.
func (t Type) IsVoid() bool { return t.spec == nil }

// Kind returns the type's kind; KindUnknown for void.
func (t Type) Kind() Kind { return Kind(t.record().Kind()) }

// KindFlag returns the record's kind_flag bit. Its meaning depends on the
// kind: bitfield member offsets for STRUCT and UNION, a union for FWD,
// signedness for ENUM and ENUM64, an attribute for DECL_TAG and TYPE_TAG.
func (t Type) KindFlag() bool { return t.record().KindFlag() }

// Vlen returns the number of members, enumerators, parameters or variables;
// for FUNC it is the linkage.
func (t Type) Vlen() int { return t.record().Vlen() }

// nameOff returns the offset of the type's name in the string section of
// its Spec chain.
func (t Type) nameOff() uint32 { return t.record().NameOff() }

// NameBytes returns the type's name without copying it; nil for an
// anonymous type. The bytes belong to the Spec: they must not be modified,
// and they are valid only until the Spec is closed. Use Name to keep a name.
func (t Type) NameBytes() []byte {
	return strBytes(t.spec, t.nameOff())
}

// Name returns a copy of the type's name; "" for an anonymous type or void.
func (t Type) Name() string {
	if t.spec == nil {
		return ""
	}
	return string(t.NameBytes())
}

// Size returns the size in bytes stored in the record of an INT, ENUM,
// ENUM64, STRUCT, UNION, DATASEC or FLOAT; 0 for other kinds. See
// Spec.SizeOf for the size of any type.
func (t Type) Size() uint32 {
	switch t.Kind() {
	case KindInt, KindEnum, KindEnum64, KindStruct, KindUnion, KindDatasec, KindFloat:
		return t.record().SizeType()
	}
	return 0
}

// Ref returns the type that t refers to: the target of a PTR, TYPEDEF,
// CONST, VOLATILE, RESTRICT or TYPE_TAG, the prototype of a FUNC, the type of
// a VAR, the tagged type of a DECL_TAG, the return type of a FUNC_PROTO and
// the element type of an ARRAY. It is 0 (void) for other kinds.
func (t Type) Ref() TypeID {
	switch t.Kind() {
	case KindPointer, KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag,
		KindFunc, KindVar, KindDeclTag, KindFuncProto:
		return TypeID(t.record().SizeType())
	case KindArray:
		typ, _, _ := t.record().Array()
		return TypeID(typ)
	}
	return 0
}

// IntInfo describes an INT: its encoding bits and its bit offset and width.
type IntInfo struct {
	Encoding uint8 // IntSigned, IntChar, IntBool
	Offset   uint8
	Bits     uint8
}

// INT encoding bits.
const (
	IntSigned = 1 << 0
	IntChar   = 1 << 1
	IntBool   = 1 << 2
)

// EncodingName spells the encoding in lower case, as kmeta's JSON outputs
// do: "none", "signed", "char" or "bool" ("unknown" for other bits).
func (ii IntInfo) EncodingName() string {
	switch ii.Encoding {
	case 0:
		return "none"
	case IntSigned:
		return "signed"
	case IntChar:
		return "char"
	case IntBool:
		return "bool"
	}
	return "unknown"
}

// Int returns an INT's encoding, bit offset and bits; zero for other kinds.
func (t Type) Int() IntInfo {
	if t.Kind() != KindInt {
		return IntInfo{}
	}
	w := t.record().Extra()
	return IntInfo{Encoding: wire.IntEncoding(w), Offset: wire.IntOffset(w), Bits: wire.IntBits(w)}
}

// ArrayInfo describes an ARRAY.
type ArrayInfo struct {
	Type   TypeID // element type
	Index  TypeID // index type
	Nelems uint32
}

// Array returns an ARRAY's element type, index type and length; zero for
// other kinds.
func (t Type) Array() ArrayInfo {
	if t.Kind() != KindArray {
		return ArrayInfo{}
	}
	typ, index, n := t.record().Array()
	return ArrayInfo{Type: TypeID(typ), Index: TypeID(index), Nelems: n}
}

// Linkage of a FUNC or VAR.
//
// Its values are LinkageStatic, LinkageGlobal and LinkageExtern.
type Linkage uint32

// Linkage values.
const (
	LinkageStatic Linkage = 0
	LinkageGlobal Linkage = 1
	LinkageExtern Linkage = 2
)

// String returns "static", "global", "extern", or "(unknown)", as bpftool
// prints them.
func (l Linkage) String() string {
	switch l {
	case LinkageStatic:
		return "static"
	case LinkageGlobal:
		return "global"
	case LinkageExtern:
		return "extern"
	}
	return "(unknown)"
}

// Linkage returns the linkage of a FUNC (its vlen) or a VAR; 0 otherwise.
func (t Type) Linkage() Linkage {
	switch t.Kind() {
	case KindFunc:
		return Linkage(t.Vlen())
	case KindVar:
		return Linkage(t.record().Extra())
	}
	return 0
}

// ComponentIdx returns a DECL_TAG's component index: -1 for the tagged type
// itself, otherwise the member or parameter it is attached to. It is 0 for
// other kinds.
func (t Type) ComponentIdx() int32 {
	if t.Kind() != KindDeclTag {
		return 0
	}
	return int32(t.record().Extra())
}

// IsUnionForward reports whether a FWD declares a union (kind_flag set)
// rather than a struct.
func (t Type) IsUnionForward() bool { return t.Kind() == KindForward && t.KindFlag() }

// IsComposite reports whether t is a STRUCT or UNION.
func (t Type) IsComposite() bool {
	k := t.Kind()
	return k == KindStruct || k == KindUnion
}

// String returns a short description such as "STRUCT 'task_struct' [123]".
func (t Type) String() string {
	if t.IsVoid() {
		return "void [0]"
	}
	var b strings.Builder
	b.WriteString(t.Kind().String())
	b.WriteString(" '")
	if n := t.NameBytes(); n != nil {
		b.Write(n)
	} else {
		b.WriteString("(anon)")
	}
	b.WriteString("' [")
	b.WriteString(uitoa(uint64(t.id)))
	b.WriteString("]")
	return b.String()
}

func uitoa(v uint64) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(buf[i:])
		}
	}
}

// kindSet is a set of kinds, one bit each.
type kindSet uint32

func kinds(ks ...Kind) kindSet {
	var set kindSet
	for _, k := range ks {
		set |= 1 << k
	}
	return set
}

var (
	compositeKinds = kinds(KindStruct, KindUnion)
	protoKinds     = kinds(KindFuncProto)
	enumKinds      = kinds(KindEnum, KindEnum64)
	datasecKinds   = kinds(KindDatasec)
)

// elem returns t's record if its kind is in set and it has an i-th vlen
// element; false otherwise and for void or after Close.
func (t Type) elem(i int, set kindSet) (wire.Record, bool) {
	r := t.rec()
	if r == nil {
		return nil, false
	}
	info := wire.Record(r).Info()
	if set&(1<<wire.InfoKind(info)) == 0 || uint(i) >= uint(wire.InfoVlen(info)) {
		return nil, false
	}
	return wire.Record(r), true
}
