package wire

import "encoding/binary"

// NoField marks a Fields entry that a kind does not have.
const NoField = 0xff

// Fields says which words of a record of one kind hold type ids and string
// offsets, so that a record can be copied and its references rewritten
// without decoding it field by field. Word 0, the name, is always a string
// offset. Offsets are in bytes; NoField marks an absent field.
type Fields struct {
	Ref0, Ref1 uint8 // type ids in the record's fixed and info parts
	ElemRef    uint8 // type id within each vlen element
	ElemName   uint8 // string offset within each vlen element
}

// KindFields describes the kinds this package knows (index: Kind). Kinds
// without references have every entry NoField.
var KindFields = [NumKinds]Fields{
	KindUnknown:   noFields,
	KindInt:       noFields,
	KindPointer:   refAt8,
	KindArray:     {Ref0: 12, Ref1: 16, ElemRef: NoField, ElemName: NoField},
	KindStruct:    {Ref0: NoField, Ref1: NoField, ElemRef: 4, ElemName: 0},
	KindUnion:     {Ref0: NoField, Ref1: NoField, ElemRef: 4, ElemName: 0},
	KindEnum:      {Ref0: NoField, Ref1: NoField, ElemRef: NoField, ElemName: 0},
	KindForward:   noFields,
	KindTypedef:   refAt8,
	KindVolatile:  refAt8,
	KindConst:     refAt8,
	KindRestrict:  refAt8,
	KindFunc:      refAt8,
	KindFuncProto: {Ref0: 8, Ref1: NoField, ElemRef: 4, ElemName: 0},
	KindVar:       refAt8,
	KindDatasec:   {Ref0: NoField, Ref1: NoField, ElemRef: 0, ElemName: NoField},
	KindFloat:     noFields,
	KindDeclTag:   refAt8,
	KindTypeTag:   refAt8,
	KindEnum64:    {Ref0: NoField, Ref1: NoField, ElemRef: NoField, ElemName: 0},
}

var (
	noFields = Fields{Ref0: NoField, Ref1: NoField, ElemRef: NoField, ElemName: NoField}
	refAt8   = Fields{Ref0: 8, Ref1: NoField, ElemRef: NoField, ElemName: NoField}
)

// PutWord overwrites the host-order 32-bit word at off. The caller has
// checked the bounds.
func PutWord(b []byte, off uint32, w uint32) { binary.NativeEndian.PutUint32(b[off:], w) }
