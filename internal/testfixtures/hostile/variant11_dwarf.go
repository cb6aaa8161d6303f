package hostile

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
)

// DWARF11Shape names a DWARF shape of the eleventh campaign (issue 37),
// for btf encode beside pahole: the Variant11 kinds as a compiler's DWARF
// carries them, which the eighth and ninth generators did not write.
type DWARF11Shape int

// The shapes.
const (
	D11Bitfields      DWARF11Shape = iota // a struct "bits" of n bitfield members (DW_AT_data_bit_offset and DW_AT_bit_size) at every bit offset, 1 to 32 bits wide, of int and unsigned long long in turn
	D11Floats                             // n float base types "f<i>" of 2, 4, 8 and 16 bytes in turn, each under a typedef "ft<i>" and a variable
	D11SignedEnum                         // an enumeration "e" of 8 bytes of n enumerators of DW_FORM_sdata values near both ends of int64
	D11DistinctParams                     // a subroutine type of n parameters, each of its own typedef "p<i>" of a pointer to a struct "s<i>" of an int, under a typedef "f" of a pointer to it
	D11SuffixNames                        // n structs (at most maxSuffixNames) named by the suffixes of one string of n bytes, each of a member named by a suffix of another
	numDWARF11Shapes
)

// DWARF11Shapes lists every shape.
func DWARF11Shapes() []DWARF11Shape { return upTo(numDWARF11Shapes) }

// String names the shape in lower case with dashes.
func (k DWARF11Shape) String() string {
	return [...]string{"bitfields", "floats", "signed-enum", "distinct-params", "suffix-names"}[k]
}

// The abbreviation codes of eleventhAbbrev past dwarfAbbrev's abCU and
// abInt, and the forms they use.
const (
	a11Struct, a11BitMember, a11Base, a11Typedef, a11Var, a11Enum, a11Enumerator = 80, 81, 82, 83, 84, 85, 86
	a11Subroutine, a11Param, a11Pointer, a11Member                               = 87, 88, 89, 90

	formSdata = 0x0d
)

// eleventhAbbrev is the .debug_abbrev of the DWARF11 shapes.
func eleventhAbbrev() []byte {
	var b []byte
	add := func(code, tag byte, children bool, attrs ...byte) { b = appendAbbrev(b, code, tag, children, attrs...) }
	name, typ := []byte{0x03, formString}, []byte{0x49, formRef4}
	add(abCU, 0x11, true, 0x03, formString, 0x13, formData2)
	add(abInt, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
	add(a11Struct, 0x13, true, 0x03, formString, 0x0b, formData4)
	// DW_AT_data_bit_offset (0x6b) and DW_AT_bit_size (0x0d).
	add(a11BitMember, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x6b, formData4, 0x0d, formData1)
	add(a11Base, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
	add(a11Typedef, 0x16, false, append(name, typ...)...)
	add(a11Var, 0x34, false, append(name, typ...)...)
	add(a11Enum, 0x04, true, 0x03, formString, 0x0b, formData1, 0x49, formRef4)
	add(a11Enumerator, 0x28, false, 0x03, formString, 0x1c, formSdata)
	add(a11Subroutine, 0x15, true, typ...)
	add(a11Param, 0x05, false, typ...)
	add(a11Pointer, 0x0f, false, 0x0b, formData1, 0x49, formRef4)
	add(a11Member, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x38, formData4)
	return append(b, 0)
}

// BuildDWARF11 returns the shape k with n (n >= 1) as its size, in an
// x86-64 ELF relocatable file.
func BuildDWARF11(k DWARF11Shape, n int) []byte {
	le := binary.LittleEndian
	str := func(b []byte, s string) []byte { return append(append(b, s...), 0) }
	body := func(b []byte) []byte {
		switch k {
		case D11Bitfields:
			ull := uint32(len(b))
			b = append(str(append(b, a11Base), "unsigned long long"), 0x07, 8)
			b = le.AppendUint32(str(append(b, a11Struct), "bits"), uint32((n+64+63)/64*8))
			for i := range n {
				t := uint32(unitIntOff)
				if i%2 == 1 {
					t = ull
				}
				b = append(le.AppendUint32(ref4(str(append(b, a11BitMember), "m"+itoa(i)), t), uint32(i)), byte(1+i%32))
			}
			b = append(b, 0)
		case D11Floats:
			for i := range n {
				f := uint32(len(b))
				b = append(str(append(b, a11Base), "f"+itoa(i)), 0x04, [...]byte{2, 4, 8, 16}[i%4])
				td := uint32(len(b))
				b = ref4(str(append(b, a11Typedef), "ft"+itoa(i)), f)
				b = ref4(str(append(b, a11Var), "v"+itoa(i)), td)
			}
		case D11SignedEnum:
			ll := uint32(len(b))
			b = append(str(append(b, a11Base), "long long"), 0x05, 8)
			b = ref4(append(str(append(b, a11Enum), "e"), 8), ll)
			for j := range n {
				v := int64(-1)<<63 + int64(j/2)
				if j%2 == 1 {
					v = 1<<63 - 1 - int64(j/2)
				}
				b = appendSleb(str(append(b, a11Enumerator), "E"+itoa(j)), v)
			}
			b = append(b, 0)
		case D11DistinctParams:
			tds := make([]uint32, n)
			for i := range n {
				s := uint32(len(b))
				b = le.AppendUint32(str(append(b, a11Struct), "s"+itoa(i)), 4)
				b = append(le.AppendUint32(ref4(str(append(b, a11Member), "x"), unitIntOff), 0), 0)
				p := uint32(len(b))
				b = ref4(append(b, a11Pointer, 8), s)
				tds[i] = uint32(len(b))
				b = ref4(str(append(b, a11Typedef), "p"+itoa(i)), p)
			}
			sub := uint32(len(b))
			b = ref4(append(b, a11Subroutine), unitIntOff)
			for _, td := range tds {
				b = ref4(append(b, a11Param), td)
			}
			b = append(b, 0)
			p := uint32(len(b))
			b = ref4(append(b, a11Pointer, 8), sub)
			b = ref4(str(append(b, a11Typedef), "f"), p)
		case D11SuffixNames:
			n := min(n, maxSuffixNames)
			s := suffixString(n)
			for i := range n {
				b = le.AppendUint32(str(append(b, a11Struct), s[n-1-i:]), 4)
				b = append(le.AppendUint32(ref4(str(append(b, a11Member), s[n-1-(i*31)%n:]), unitIntOff), 0), 0)
			}
		}
		return b
	}
	return debugELFSections(elfSection{".debug_abbrev", eleventhAbbrev()}, elfSection{".debug_info", dwarfUnit(nil, body)})
}

// maxSuffixNames is the most names SuffixNames and D11SuffixNames cut
// from one string: n^2/2 bytes of names, 12.5 MB at 5,000, within BTF's
// 16 MiB of strings. Larger n are taken as this.
const maxSuffixNames = 5000

// suffixString returns a string of n letters and underscores, the same
// for the same n: the names SuffixNames and D11SuffixNames cut.
func suffixString(n int) string {
	var sb strings.Builder
	r := rand.New(rand.NewPCG(11, uint64(n)))
	for range n {
		sb.WriteByte("abcdefghijklmnopqrstuvwxyz_"[r.IntN(27)])
	}
	return sb.String()
}
