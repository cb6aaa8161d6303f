package hostile

import "encoding/binary"

// NestedWide returns an x86-64 ELF object of one DWARF unit holding depth
// structs "s", each nested in the one before (its last child) after int
// members of its own, n in the outermost and one more in each inner one:
// wide types inside wide types, for the encoder's count of a wide type's
// elements ahead, which must not read the inner ones again for each
// struct around them (the sizes differ so that the encoder's tables fill
// in the middle of inner structs too).
func NestedWide(depth, n int) []byte {
	le := binary.LittleEndian
	body := func(b []byte) []byte {
		for k := range depth {
			b = le.AppendUint32(append(b, a8Struct, 's', 0), uint32(4*(n+k)))
			for i := range n + k {
				b = le.AppendUint32(ref4(append(b, a8Member, 'm', 0), unitIntOff), uint32(4*i))
			}
		}
		return append(b, make([]byte, depth)...) // each struct's end
	}
	return debugELFSections(elfSection{".debug_abbrev", eighthAbbrev()}, elfSection{".debug_info", dwarfUnit(nil, body)})
}
