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

// RefShape is KindFields in the form the hot loops of the reader use: the
// byte offsets of a record's references with a mask that is all ones where
// the kind has the reference and zero where it does not, so that every
// kind is treated with the same few instructions instead of a switch that
// mispredicts on kernel BTF, whose kinds come in no order. An absent
// fixed-part reference points at word NameAt, which every record has.
type RefShape struct {
	Ref0At, Ref0Mask uint32 // a type id in the fixed part or the word after
	Ref1At, Ref1Mask uint32 // a second one (ARRAY's index type)
	ElemStart        uint32 // offset of the first vlen element
	ElemSize         uint32 // size of a vlen element; 0 if the kind has none
	ElemNameAt       uint32 // string offset within an element, under ElemNameMask
	ElemNameMask     uint32
	ElemTypeAt       uint32 // type id within an element, under ElemTypeMask
	ElemTypeMask     uint32
}

// RefShapes holds the RefShape of every kind number the info word can hold;
// kinds this package does not know have no references.
var RefShapes = func() (shapes [MaxKind + 1]RefShape) {
	at := func(off uint8) (uint32, uint32) {
		if off == NoField {
			return NameAt, 0
		}
		return uint32(off), ^uint32(0)
	}
	for k := range NumKinds {
		f, l := KindFields[k], DefaultLayouts[k]
		sh := &shapes[k]
		sh.Ref0At, sh.Ref0Mask = at(f.Ref0)
		sh.Ref1At, sh.Ref1Mask = at(f.Ref1)
		sh.ElemStart = TypeSize + uint32(l.InfoSize)
		sh.ElemNameAt, sh.ElemNameMask = at(f.ElemName)
		sh.ElemTypeAt, sh.ElemTypeMask = at(f.ElemRef)
		if sh.ElemNameMask|sh.ElemTypeMask != 0 {
			sh.ElemSize = uint32(l.ElemSize)
		}
	}
	return shapes
}()
