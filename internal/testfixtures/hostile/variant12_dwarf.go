package hostile

import (
	"encoding/binary"
	"fmt"
)

// DWARF12Shape names a DWARF shape of the twelfth campaign (issue 37),
// for btf encode beside pahole: what the DWARF generators before did not
// write. Many units of one distinct type each, DWARF 2's bitfields
// (DW_AT_bit_offset from the storage unit's most significant bit),
// variable-length and flexible arrays, sizes and offsets past 32 bits in
// DW_FORM_data8, and DW_AT_type pointing at DIEs that are not types.
type DWARF12Shape int

// The shapes.
const (
	D12DistinctCUs  DWARF12Shape = iota // n compile units, each its int, a struct "s<i>" { int x; int *p; } and a variable "v<i>" of it
	D12OldBitfields                     // a struct "bits" of n bitfields 1 to 16 bits wide, two to each 4-byte unit, by DW_AT_byte_size, DW_AT_bit_offset and DW_AT_bit_size, of int
	D12VLAs                             // n structs "v<i>" { int len; int a[]; } whose subrange has no bound, a DW_AT_count expression or a DW_AT_upper_bound that refers to a variable, in turn
	D12HugeSizes                        // n structs "h<i>" of 2^32+i bytes (DW_FORM_data8), a member at byte 2^32+i-4 and an array of int of upper bound 2^62+i
	D12NonTypeRefs                      // n typedefs "t<i>" whose DW_AT_type is a variable (of the next typedef), an enumerator, the unit's DIE or a member in turn
	numDWARF12Shapes
)

// DWARF12Shapes lists every shape.
func DWARF12Shapes() []DWARF12Shape { return upTo(numDWARF12Shapes) }

// String names the shape in lower case with dashes.
func (k DWARF12Shape) String() string {
	return [...]string{"distinct-cus", "old-bitfields", "vlas", "huge-sizes", "non-type-refs"}[k]
}

// The abbreviation codes of twelfthAbbrev past dwarfAbbrev's abCU and
// abInt.
const (
	a12Struct, a12Member, a12OldBit, a12Var, a12Ptr, a12Array, a12SubNone       = 100, 101, 102, 103, 104, 105, 106
	a12SubCount, a12SubRef, a12HugeStruct, a12HugeMember, a12SubUB8, a12Typedef = 107, 108, 109, 110, 111, 112
	a12Enum, a12Enumerator                                                      = 113, 114

	formExprloc = 0x18
)

// twelfthAbbrev is the .debug_abbrev of the DWARF12 shapes.
func twelfthAbbrev() []byte {
	var b []byte
	add := func(code, tag byte, children bool, attrs ...byte) { b = appendAbbrev(b, code, tag, children, attrs...) }
	name, typ := []byte{0x03, formString}, []byte{0x49, formRef4}
	add(abCU, 0x11, true, 0x03, formString, 0x13, formData2)
	add(abInt, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
	add(a12Struct, 0x13, true, 0x03, formString, 0x0b, 0x06) // DW_FORM_data4
	add(a12Member, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x38, 0x06)
	// DW_AT_byte_size, DW_AT_bit_size, DW_AT_bit_offset (DWARF 2).
	add(a12OldBit, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x0b, formData1, 0x0d, formData1, 0x0c, formData1, 0x38, 0x06)
	add(a12Var, 0x34, false, append(name, typ...)...)
	add(a12Ptr, 0x0f, false, 0x0b, formData1, 0x49, formRef4)
	add(a12Array, 0x01, true, typ...)
	add(a12SubNone, 0x21, false, typ...)
	add(a12SubCount, 0x21, false, 0x49, formRef4, 0x37, formExprloc)
	add(a12SubRef, 0x21, false, 0x49, formRef4, 0x2f, formRef4)
	add(a12HugeStruct, 0x13, true, 0x03, formString, 0x0b, formData8)
	add(a12HugeMember, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x38, formData8)
	add(a12SubUB8, 0x21, false, 0x49, formRef4, 0x2f, formData8)
	add(a12Typedef, 0x16, false, append(name, typ...)...)
	add(a12Enum, 0x04, true, 0x03, formString, 0x0b, formData1, 0x49, formRef4)
	add(a12Enumerator, 0x28, false, 0x03, formString, 0x1c, formData1)
	return append(b, 0)
}

// BuildDWARF12 returns the shape k with n (n >= 1) as its size, in an
// x86-64 ELF relocatable file.
func BuildDWARF12(k DWARF12Shape, n int) []byte {
	le := binary.LittleEndian
	str := func(b []byte, s string) []byte { return append(append(b, s...), 0) }
	if k == D12DistinctCUs {
		var info []byte
		for i := range n {
			info = dwarfUnit(info, func(b []byte) []byte {
				start := len(info) // offsets are the unit's own
				p := uint32(len(b) - start)
				b = ref4(append(b, a12Ptr, 8), unitIntOff)
				s := uint32(len(b) - start)
				b = le.AppendUint32(str(append(b, a12Struct), "s"+itoa(i)), 16)
				b = le.AppendUint32(ref4(str(append(b, a12Member), "x"), unitIntOff), 0)
				b = le.AppendUint32(ref4(str(append(b, a12Member), "p"), p), 8)
				b = append(b, 0)
				return ref4(str(append(b, a12Var), "v"+itoa(i)), s)
			})
		}
		return debugELFSections(elfSection{".debug_abbrev", twelfthAbbrev()}, elfSection{".debug_info", info})
	}
	body := func(b []byte) []byte {
		switch k {
		case D12OldBitfields:
			b = le.AppendUint32(str(append(b, a12Struct), "bits"), uint32(4*(n/2+1)))
			for i := range n {
				w := byte(1 + i%16)
				b = ref4(str(append(b, a12OldBit), "m"+itoa(i)), unitIntOff)
				b = le.AppendUint32(append(b, 4, w, byte(16*(i%2))), uint32(4*(i/2)))
			}
			b = append(b, 0)
		case D12VLAs:
			lenVar := uint32(len(b))
			b = ref4(str(append(b, a12Var), "len"), unitIntOff)
			for i := range n {
				arr := uint32(len(b))
				b = ref4(append(b, a12Array), unitIntOff)
				switch i % 3 {
				case 0:
					b = ref4(append(b, a12SubNone), unitIntOff)
				case 1:
					// DW_OP_lit5 DW_OP_lit3 DW_OP_mul
					b = append(ref4(append(b, a12SubCount), unitIntOff), 3, 0x35, 0x33, 0x1e)
				case 2:
					b = ref4(ref4(append(b, a12SubRef), unitIntOff), lenVar)
				}
				b = append(b, 0)
				b = le.AppendUint32(str(append(b, a12Struct), "v"+itoa(i)), 4)
				b = le.AppendUint32(ref4(str(append(b, a12Member), "len"), unitIntOff), 0)
				b = le.AppendUint32(ref4(str(append(b, a12Member), "a"), arr), 4)
				b = append(b, 0)
			}
		case D12HugeSizes:
			for i := range n {
				arr := uint32(len(b))
				b = ref4(append(b, a12Array), unitIntOff)
				b = le.AppendUint64(ref4(append(b, a12SubUB8), unitIntOff), 1<<62+uint64(i))
				b = append(b, 0)
				size := uint64(1)<<32 + uint64(i)
				b = le.AppendUint64(str(append(b, a12HugeStruct), "h"+itoa(i)), size)
				b = le.AppendUint64(ref4(str(append(b, a12HugeMember), "last"), unitIntOff), size-4)
				b = le.AppendUint64(ref4(str(append(b, a12HugeMember), "arr"), arr), 0)
				b = append(b, 0)
			}
		case D12NonTypeRefs:
			// An enumeration and a struct whose enumerator and member
			// the typedefs name, then n typedef-variable pairs of fixed
			// size, so that each typedef can point at the next pair.
			b = ref4(append(str(append(b, a12Enum), "e"), 4), unitIntOff)
			enumerator := uint32(len(b))
			b = append(str(append(b, a12Enumerator), "E"), 1, 0)
			b = le.AppendUint32(str(append(b, a12Struct), "s"), 4)
			member := uint32(len(b))
			b = le.AppendUint32(ref4(str(append(b, a12Member), "m"), unitIntOff), 0)
			b = append(b, 0)
			const pair = 1 + 9 + 4 + 1 + 9 + 4 // "t%07d" and "v%07d" with their NULs
			first := uint32(len(b))
			for i := range n {
				v := first + uint32(i)*pair + 14
				to := [...]uint32{v, enumerator, 11, member}[i%4]
				b = ref4(str(append(b, a12Typedef), fmt.Sprintf("t%07d", i)), to)
				next := first + uint32(i+1)*pair
				if i == n-1 {
					next = unitIntOff
				}
				b = ref4(str(append(b, a12Var), fmt.Sprintf("v%07d", i)), next)
			}
		}
		return b
	}
	return debugELFSections(elfSection{".debug_abbrev", twelfthAbbrev()}, elfSection{".debug_info", dwarfUnit(nil, body)})
}
