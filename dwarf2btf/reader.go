package dwarf2btf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"
)

// The reader decodes only what the encoder needs from .debug_info: unit
// headers, abbreviations and the attributes listed in attrSlot, without
// allocating per DIE. debug/dwarf allocates an Entry and a Field slice for
// every DIE (dwarf2btf/BENCH.md measures the difference).

// DWARF constants used here (DWARF 5, section 7).
const (
	dwTagArrayType       = 0x01
	dwTagClassType       = 0x02
	dwTagEnumerationType = 0x04
	dwTagEnumerator      = 0x28
	dwTagFormalParameter = 0x05
	dwTagLexicalBlock    = 0x0b
	dwTagMember          = 0x0d
	dwTagPointerType     = 0x0f
	dwTagReferenceType   = 0x10
	dwTagCompileUnit     = 0x11
	dwTagStringType      = 0x12
	dwTagStructureType   = 0x13
	dwTagSubroutineType  = 0x15
	dwTagTypedef         = 0x16
	dwTagUnionType       = 0x17
	dwTagUnspecParams    = 0x18
	dwTagInheritance     = 0x1c
	dwTagInlinedSubr     = 0x1d
	dwTagPtrToMember     = 0x1f
	dwTagSubrangeType    = 0x21
	dwTagBaseType        = 0x24
	dwTagConstType       = 0x26
	dwTagImportedDecl    = 0x08
	dwTagLabel           = 0x0a
	dwTagInterfaceType   = 0x38
	dwTagNamespace       = 0x39
	dwTagImportedModule  = 0x3a
	dwTagUnspecType      = 0x3b
	dwTagImportedUnit    = 0x3d
	dwTagRestrictType    = 0x37
	dwTagVolatileType    = 0x35
	dwTagSubprogram      = 0x2e
	dwTagVariable        = 0x34
	dwTagDwarfProcedure  = 0x36
	dwTagRvalueRefType   = 0x42
	dwTagTypeUnit        = 0x41
	dwTagPartialUnit     = 0x3c
	dwTagSkeletonUnit    = 0x4a
	dwTagLLVMAnnotation  = 0x6000
)

// Attributes the encoder reads, each with a slot in die.
const (
	atLocation       = 0x02
	atName           = 0x03
	atByteSize       = 0x0b
	atBitOffset      = 0x0c
	atBitSize        = 0x0d
	atLanguage       = 0x13
	atConstValue     = 0x1c
	atUpperBound     = 0x2f
	atAbstractOrigin = 0x31
	atCount          = 0x37
	atMemberLocation = 0x38
	atDeclaration    = 0x3c
	atEncoding       = 0x3e
	atExternal       = 0x3f
	atSpecification  = 0x47
	atType           = 0x49
	atDataBitOffset  = 0x6b
	atStrOffsetsBase = 0x72
	atAddrBase       = 0x73
	atArtificial     = 0x34
	atLoclistsBase   = 0x8c
)

// attrSlot maps an attribute to its index in die.attrs; 0 means unused.
func attrSlot(at uint64) uint8 {
	switch at {
	case atLocation:
		return slotLocation
	case atName:
		return slotName
	case atByteSize:
		return slotByteSize
	case atBitOffset:
		return slotBitOffset
	case atBitSize:
		return slotBitSize
	case atLanguage:
		return slotLanguage
	case atConstValue:
		return slotConstValue
	case atUpperBound:
		return slotUpperBound
	case atAbstractOrigin:
		return slotAbstractOrigin
	case atCount:
		return slotCount
	case atMemberLocation:
		return slotMemberLocation
	case atDeclaration:
		return slotDeclaration
	case atEncoding:
		return slotEncoding
	case atExternal:
		return slotExternal
	case atSpecification:
		return slotSpecification
	case atType:
		return slotType
	case atDataBitOffset:
		return slotDataBitOffset
	case atStrOffsetsBase:
		return slotStrOffsetsBase
	case atAddrBase:
		return slotAddrBase
	case atArtificial:
		return slotArtificial
	case atLoclistsBase:
		return slotLoclistsBase
	}
	return 0
}

const (
	slotNone = iota
	slotLocation
	slotName
	slotByteSize
	slotBitOffset
	slotBitSize
	slotLanguage
	slotConstValue
	slotUpperBound
	slotAbstractOrigin
	slotCount
	slotMemberLocation
	slotDeclaration
	slotEncoding
	slotExternal
	slotSpecification
	slotType
	slotDataBitOffset
	slotStrOffsetsBase
	slotAddrBase
	slotArtificial
	slotLoclistsBase
	numSlots
)

// Forms (DWARF 5, 7.5.6, and the GNU extensions).
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

// Value classes of a decoded attribute.
const (
	classNone     = iota
	classConst    // u holds the value (sdata sign-extended)
	classFlag     // u is 0 or 1
	classAddr     // u is an address (DW_FORM_addr)
	classAddrx    // u is an index into .debug_addr
	classString   // b holds the bytes, without the NUL
	classStrx     // u is an index into .debug_str_offsets
	classRef      // u is a .debug_info offset
	classSig      // a type signature (unsupported target)
	classBlock    // b holds the block
	classOffset   // u is an offset into another section (DW_FORM_sec_offset)
	classOther    // other forms the encoder ignores
	classLoclistx // u is an index into the unit's location list offsets
	classStrp     // u is an offset into .debug_str
)

// attrVal is one decoded attribute.
type attrVal struct {
	class uint8
	form  uint16
	u     uint64
	b     []byte
}

// dwarfData holds the debug sections of one object.
type dwarfData struct {
	order      binary.ByteOrder
	info       []byte
	abbrev     []byte
	str        []byte
	lineStr    []byte
	strOffsets []byte
	addr       []byte
	// loclists and loc are .debug_loclists and .debug_loc, and
	// regParams the ABI's parameter registers (location.go): set only
	// when the encoding looks at parameters' locations.
	loclists  []byte
	loc       []byte
	regParams []uint8

	// strEnds has a bit set for each NUL byte of str (bit i%64 of word
	// i/64), made once, by the first reader that needs it (strp).
	strEndsOnce sync.Once
	strEnds     []uint64
}

// strp returns the NUL-terminated string at off in .debug_str, as strAt,
// finding its end in strEnds: a name's length without reading the name,
// whose bytes lie all over the section (an L2 miss each), where the
// bitmap is an eighth of its size.
func (d *dwarfData) strp(off uint64) []byte {
	// BenchmarkUnits guards it: finding the NUL byte by byte is a cache miss
	// per name (BENCH.md).
	d.strEndsOnce.Do(d.markStrEnds)
	sec, ends := d.str, d.strEnds
	if off >= uint64(len(sec)) {
		return nil
	}
	i := off / 64
	m := ends[i] & (^uint64(0) << (off % 64))
	for m == 0 {
		if i++; i >= uint64(len(ends)) {
			return nil // not terminated
		}
		m = ends[i]
	}
	end := i*64 + uint64(bits.TrailingZeros64(m))
	return sec[off:end:end]
}

// markStrEnds makes strEnds.
func (d *dwarfData) markStrEnds() {
	sec := d.str
	ends := make([]uint64, (len(sec)+63)/64)
	for i := 0; ; i++ {
		j := bytes.IndexByte(sec[i:], 0)
		if j < 0 {
			break
		}
		i += j
		ends[i/64] |= 1 << (i % 64)
	}
	d.strEnds = ends
}

// unitHeader describes one unit of .debug_info.
type unitHeader struct {
	off       uint32 // offset of the header
	dieOff    uint32 // offset of the first DIE
	end       uint32 // offset after the unit
	version   uint16
	unitType  uint8
	addrSize  uint8
	dwarf64   bool
	abbrevOff uint64
}

// errFormat makes the reader's errors, with the offset they concern.
func errFormat(off uint64, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// FormatError reports malformed DWARF at an offset of .debug_info (or of
// the section the message names).
type FormatError struct {
	Offset uint64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("dwarf2btf: malformed DWARF at %#x: %s", e.Offset, e.Msg)
}

// unitOffsets returns the offset of every unit of .debug_info, whose
// headers it checks. It keeps 4 bytes a unit, not the header (unitAt reads
// it again): a vmlinux has thousands of units, but an input may have a
// million, one for each tiny object it was linked from.
func (d *dwarfData) unitOffsets() ([]uint32, error) {
	var offs []uint32
	info := d.info
	if uint64(len(info)) >= 1<<32 {
		return nil, errors.New("dwarf2btf: .debug_info larger than 4 GiB")
	}
	for off := uint64(0); off < uint64(len(info)); {
		u, err := d.unitAt(off)
		if err != nil {
			return nil, err
		}
		offs = append(offs, u.off)
		off = uint64(u.end)
	}
	return offs, nil
}

func (d *dwarfData) unitAt(off uint64) (unitHeader, error) {
	c := cursor{b: d.info, pos: off, order: d.order}
	u := unitHeader{off: uint32(off)}
	length := uint64(c.u32())
	if length == 0xffffffff {
		u.dwarf64 = true
		length = c.u64()
	} else if length >= 0xfffffff0 {
		return u, errFormat(off, "reserved unit length %#x", length)
	}
	if c.err != nil || length > uint64(len(d.info))-c.pos {
		return u, errFormat(off, "unit length %d beyond the section", length)
	}
	end := c.pos + length
	u.version = c.u16()
	switch {
	case u.version >= 2 && u.version <= 4:
		u.abbrevOff = c.offset(u.dwarf64)
		u.addrSize = c.u8()
		u.unitType = 1 // DW_UT_compile
	case u.version == 5:
		u.unitType = c.u8()
		u.addrSize = c.u8()
		u.abbrevOff = c.offset(u.dwarf64)
		switch u.unitType {
		case 2, 6: // DW_UT_type, DW_UT_split_type
			c.u64()
			c.offset(u.dwarf64)
		case 4, 5: // DW_UT_skeleton, DW_UT_split_compile
			c.u64()
		}
	default:
		return u, errFormat(off, "unsupported DWARF version %d", u.version)
	}
	if c.err != nil || c.pos > end {
		return u, errFormat(off, "truncated unit header")
	}
	if u.addrSize != 4 && u.addrSize != 8 {
		return u, errFormat(off, "address size %d", u.addrSize)
	}
	u.dieOff, u.end = uint32(c.pos), uint32(end)
	return u, nil
}

// cursor is a bounds-checked reader with a sticky error.
type cursor struct {
	b     []byte
	pos   uint64
	order binary.ByteOrder
	err   error
	// le, if set, tells that order is little-endian, read without a call
	// through the interface (the unit reader's hot loop).
	le bool
}

func (c *cursor) fail() {
	if c.err == nil {
		c.err = errFormat(c.pos, "data ends early")
	}
	c.pos = uint64(len(c.b))
}

func (c *cursor) take(n uint64) []byte {
	if n > uint64(len(c.b))-c.pos {
		c.fail()
		return nil
	}
	s := c.b[c.pos : c.pos+n]
	c.pos += n
	return s
}

func (c *cursor) u8() uint8 {
	if c.pos >= uint64(len(c.b)) {
		c.fail()
		return 0
	}
	v := c.b[c.pos]
	c.pos++
	return v
}

func (c *cursor) u16() uint16 {
	if s := c.take(2); s != nil {
		if c.le {
			return binary.LittleEndian.Uint16(s)
		}
		return c.order.Uint16(s)
	}
	return 0
}

func (c *cursor) u24() uint32 {
	if s := c.take(3); s != nil {
		if c.order == binary.BigEndian {
			return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2])
		}
		return uint32(s[2])<<16 | uint32(s[1])<<8 | uint32(s[0])
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if s := c.take(4); s != nil {
		if c.le {
			return binary.LittleEndian.Uint32(s)
		}
		return c.order.Uint32(s)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if s := c.take(8); s != nil {
		if c.le {
			return binary.LittleEndian.Uint64(s)
		}
		return c.order.Uint64(s)
	}
	return 0
}

func (c *cursor) offset(dwarf64 bool) uint64 {
	if dwarf64 {
		return c.u64()
	}
	return uint64(c.u32())
}

func (c *cursor) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		if c.pos >= uint64(len(c.b)) {
			c.fail()
			return 0
		}
		x := c.b[c.pos]
		c.pos++
		if shift < 64 {
			v |= uint64(x&0x7f) << shift
		}
		shift += 7
		if x < 0x80 {
			return v
		}
	}
}

func (c *cursor) sleb() int64 {
	var v int64
	var shift uint
	for {
		if c.pos >= uint64(len(c.b)) {
			c.fail()
			return 0
		}
		x := c.b[c.pos]
		c.pos++
		if shift < 64 {
			v |= int64(x&0x7f) << shift
		}
		shift += 7
		if x < 0x80 {
			if shift < 64 && x&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

// cstring reads a NUL-terminated string, returning it without the NUL.
func (c *cursor) cstring() []byte {
	rest := c.b[c.pos:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		c.fail()
		return nil
	}
	c.pos += uint64(i) + 1
	return rest[:i:i]
}

// strAt returns the NUL-terminated string at off in sec, nil if off is out
// of range or the string is not terminated.
func strAt(sec []byte, off uint64) []byte {
	if off >= uint64(len(sec)) {
		return nil
	}
	rest := sec[off:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		return rest[:i:i]
	}
	return nil
}
