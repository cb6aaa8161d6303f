package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// BuildELF12 returns raw in an ELF64 relocatable file's .BTF section
// after n sections whose names look like it (".BTF.", ".BTF_ids", ".btf",
// ".BTF.ext.", ".BTF0", ".BTF.base.", each of 64 bytes of 0xff) and
// whose last is a second, empty ".BTF.ext": a reader that matches
// section names by prefix, or stops at the first near match, misreads
// it. The names are distinct in the string table, so that each section
// is one name more for a reader to compare.
func BuildELF12(raw []byte, n int) []byte {
	look := []string{".BTF.", ".BTF_ids", ".btf", ".BTF.ext.", ".BTF0", ".BTF.base."}
	var strtab bytes.Buffer
	strtab.WriteString("\x00.shstrtab\x00.BTF\x00.BTF.ext\x00")
	const shstrName, btfName, extName = 1, 11, 16
	names := make([]uint32, n)
	for i := range n {
		names[i] = uint32(strtab.Len())
		fmt.Fprintf(&strtab, "%s%d", look[i%len(look)], i)
		strtab.WriteByte(0)
	}
	var out bytes.Buffer
	out.Write(make([]byte, 64))
	strOff := out.Len()
	out.Write(strtab.Bytes())
	for out.Len()%8 != 0 {
		out.WriteByte(0)
	}
	junkOff := out.Len()
	out.Write(bytes.Repeat([]byte{0xff}, 64))
	btfOff := out.Len()
	out.Write(raw)
	for out.Len()%8 != 0 {
		out.WriteByte(0)
	}
	shoff := out.Len()
	total := 1 + n + 3
	le := binary.LittleEndian
	sh := func(name, typ uint32, off, size, align uint64, link uint32) {
		var h [64]byte
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
		le.PutUint32(h[40:], link)
		le.PutUint64(h[48:], align)
		out.Write(h[:])
	}
	shstrndx := total - 1
	escape := total >= 0xff00
	if escape {
		sh(0, 0, 0, uint64(total), 0, uint32(shstrndx))
	} else {
		sh(0, 0, 0, 0, 0, 0)
	}
	for i := range n {
		sh(names[i], 1, uint64(junkOff), 64, 1, 0)
	}
	sh(btfName, 1, uint64(btfOff), uint64(len(raw)), 4, 0)
	sh(extName, 1, uint64(junkOff), 0, 4, 0)
	sh(shstrName, 3, uint64(strOff), uint64(strtab.Len()), 1, 0)
	data := out.Bytes()
	putELFHeader(data, 247, shoff) // EM_BPF
	if escape {
		le.PutUint16(data[60:], 0)
		le.PutUint16(data[62:], 0xffff) // SHN_XINDEX
	} else {
		le.PutUint16(data[60:], uint16(total))
		le.PutUint16(data[62:], uint16(shstrndx))
	}
	return data
}
