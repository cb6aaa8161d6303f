package wire

import "encoding/binary"

// Shape says where a record of one kind keeps its type ids and string
// offsets, so that records are walked, copied and remapped without being
// decoded field by field. It is the one description of that in kmeta: the
// reader's hot loops use its byte offsets and masks, dedup its word
// indices (WordRecord), and everyone else the visitors on Record and WordRecord.
//
// The byte form has a mask that is all ones where the kind has a field and
// zero where it does not, so that every kind is treated with the same few
// instructions instead of a switch that mispredicts on kernel BTF, whose
// kinds come in no order. An absent fixed-part field points at word NameAt,
// which every record has. Word 0, the name, is always a string offset and
// is not described.
type Shape struct {
	Ref0At, Ref0Mask uint32 // a type id in the fixed part or the word after
	Ref1At, Ref1Mask uint32 // a second one (ARRAY's index type)
	ElemStart        uint32 // offset of the first vlen element
	ElemSize         uint32 // size of a vlen element; 0 if it has no field
	ElemNameAt       uint32 // string offset within an element, under ElemNameMask
	ElemNameMask     uint32
	ElemTypeAt       uint32 // type id within an element, under ElemTypeMask
	ElemTypeMask     uint32

	// W is the same in 32-bit word indices, for records held as host-order
	// words; -1 marks an absent field.
	W WordShape
}

// WordShape is a Shape in word indices (see WordRecord).
type WordShape struct {
	Ref0, Ref1 int // words of the fixed part holding type ids, -1 if none
	Fixed      int // words before the first element
	Elem       int // words per element
	ElemRef    int // word within an element holding a type id, -1 if none
	ElemName   int // word within an element holding a name, -1 if none
}

// absent marks a field a kind does not have in the table below.
const absent = 0xff

// fields lists, per kind, the byte offsets of its type ids (in the fixed
// part and the word after it) and of the type id and the name within each
// vlen element. Shapes is derived from it, with DefaultLayouts.
var fields = [NumKinds]struct{ ref0, ref1, elemRef, elemName uint8 }{
	KindUnknown:   {absent, absent, absent, absent},
	KindInt:       {absent, absent, absent, absent},
	KindPointer:   {SizeTypeAt, absent, absent, absent},
	KindArray:     {arrayTypeAt, arrayIndexAt, absent, absent},
	KindStruct:    {absent, absent, 4, 0},
	KindUnion:     {absent, absent, 4, 0},
	KindEnum:      {absent, absent, absent, 0},
	KindForward:   {absent, absent, absent, absent},
	KindTypedef:   {SizeTypeAt, absent, absent, absent},
	KindVolatile:  {SizeTypeAt, absent, absent, absent},
	KindConst:     {SizeTypeAt, absent, absent, absent},
	KindRestrict:  {SizeTypeAt, absent, absent, absent},
	KindFunc:      {SizeTypeAt, absent, absent, absent},
	KindFuncProto: {SizeTypeAt, absent, 4, 0},
	KindVar:       {SizeTypeAt, absent, absent, absent},
	KindDatasec:   {absent, absent, 0, absent},
	KindFloat:     {absent, absent, absent, absent},
	KindDeclTag:   {SizeTypeAt, absent, absent, absent},
	KindTypeTag:   {SizeTypeAt, absent, absent, absent},
	KindEnum64:    {absent, absent, absent, 0},
}

// Shapes holds the Shape of every kind number the info word can hold;
// kinds this package does not know have no type ids and no element names.
var Shapes = func() (shapes [MaxKind + 1]Shape) {
	at := func(off uint8) (uint32, uint32) {
		if off == absent {
			return NameAt, 0
		}
		return uint32(off), ^uint32(0)
	}
	word := func(off uint8) int {
		if off == absent {
			return -1
		}
		return int(off) / 4
	}
	for k := range shapes {
		sh := &shapes[k]
		sh.Ref0At, sh.Ref1At, sh.ElemNameAt, sh.ElemTypeAt = NameAt, NameAt, NameAt, NameAt
		sh.W = WordShape{Ref0: -1, Ref1: -1, Fixed: TypeSize / 4, Elem: 0, ElemRef: -1, ElemName: -1}
		if k >= NumKinds {
			continue
		}
		f, l := fields[k], DefaultLayouts[k]
		sh.Ref0At, sh.Ref0Mask = at(f.ref0)
		sh.Ref1At, sh.Ref1Mask = at(f.ref1)
		sh.ElemStart = TypeSize + uint32(l.InfoSize)
		sh.ElemNameAt, sh.ElemNameMask = at(f.elemName)
		sh.ElemTypeAt, sh.ElemTypeMask = at(f.elemRef)
		if sh.ElemNameMask|sh.ElemTypeMask != 0 {
			sh.ElemSize = uint32(l.ElemSize)
		}
		sh.W = WordShape{
			Ref0: word(f.ref0), Ref1: word(f.ref1),
			Fixed: int(sh.ElemStart) / 4, Elem: int(l.ElemSize) / 4,
			ElemRef: word(f.elemRef), ElemName: word(f.elemName),
		}
	}
	return shapes
}()

// IsRef reports whether word i of a record of this shape holds a type id.
func (s *WordShape) IsRef(i int) bool {
	if i < s.Fixed {
		return i == s.Ref0 || i == s.Ref1
	}
	return s.ElemRef >= 0 && (i-s.Fixed)%s.Elem == s.ElemRef
}

// refs calls f with the position of every type id of a record of this
// shape and size bytes, in record order (the fixed part's first, then its
// second, then each element's): in bytes for shift 0, in words for shift 2.
// It is the one loop behind the visitors of Record and WordRecord.
func (sh *Shape) refs(size uint32, shift uint, f func(uint32)) {
	if sh.Ref0Mask != 0 {
		f(sh.Ref0At >> shift)
	}
	if sh.Ref1Mask != 0 {
		f(sh.Ref1At >> shift)
	}
	if sh.ElemTypeMask != 0 {
		for at := sh.ElemStart + sh.ElemTypeAt; at < size; at += sh.ElemSize {
			f(at >> shift)
		}
	}
}

// names is refs for string offsets: the name, then each element's.
func (sh *Shape) names(size uint32, shift uint, f func(uint32)) {
	f(NameAt >> shift)
	if sh.ElemNameMask != 0 {
		for at := sh.ElemStart + sh.ElemNameAt; at < size; at += sh.ElemSize {
			f(at >> shift)
		}
	}
}

// WordRecord is one type record as host-order 32-bit words, exactly as
// long as the record: word 0 the name, word 1 the info word, word 2 the
// size or type, then the kind's extra words. Dedup keeps its records so.
type WordRecord []uint32

// Kind returns the kind stored in the info word.
func (w WordRecord) Kind() Kind { return InfoKind(w[InfoAt/4]) }

// Vlen returns the vlen stored in the info word.
func (w WordRecord) Vlen() int { return InfoVlen(w[InfoAt/4]) }

// KindFlag returns the kind flag stored in the info word.
func (w WordRecord) KindFlag() bool { return InfoKindFlag(w[InfoAt/4]) }

// Shape returns the word shape of the record's kind.
func (w WordRecord) Shape() *WordShape { return &Shapes[w.Kind()].W }

// ForRefs calls f with the index of every word of w that holds a type id,
// in record order.
func (w WordRecord) ForRefs(f func(i uint32)) {
	Shapes[w[InfoAt/4]>>infoKindShift&infoKindMask].refs(uint32(len(w))*4, 2, f)
}

// ForNames calls f with the index of every word of w that holds a string
// offset, the name first.
func (w WordRecord) ForNames(f func(i uint32)) {
	Shapes[w[InfoAt/4]>>infoKindShift&infoKindMask].names(uint32(len(w))*4, 2, f)
}

// size returns the size in bytes of the whole record r by the default
// layouts: only the fixed part if its kind is not one of them.
func (r Record) size() uint32 {
	info := r.Info()
	l := &DefaultLayouts[InfoKind(info)]
	return TypeSize + uint32(l.InfoSize) + uint32(l.ElemSize)*uint32(InfoVlen(info))
}

// ForRefs calls f with the byte offset of every word of r that holds a type
// id, in record order: the fixed part's first, then its second (ARRAY's
// index type), then each vlen element's.
func (r Record) ForRefs(f func(at uint32)) { Shapes[r.Kind()].refs(r.size(), 0, f) }

// ForNames calls f with the byte offset of every word of r that holds a
// string offset: the name, then each vlen element's, in record order.
func (r Record) ForNames(f func(at uint32)) { Shapes[r.Kind()].names(r.size(), 0, f) }

// RemapRefs replaces every type id t of r by f(t), in record order.
func (r Record) RemapRefs(f func(uint32) uint32) {
	r.ForRefs(func(at uint32) { PutWord(r, at, f(Word(r, at))) })
}

// PutWord overwrites the host-order 32-bit word at off. The caller has
// checked the bounds.
func PutWord(b []byte, off uint32, w uint32) { binary.NativeEndian.PutUint32(b[off:], w) }
