package hostile

import (
	"bytes"
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
	st := startSections(&out, total)
	sh := st.add
	for i := range n {
		sh(names[i], 1, uint64(junkOff), 64, 1, 0)
	}
	sh(btfName, 1, uint64(btfOff), uint64(len(raw)), 4, 0)
	sh(extName, 1, uint64(junkOff), 0, 4, 0)
	sh(shstrName, 3, uint64(strOff), uint64(strtab.Len()), 1, 0)
	return st.finish(shoff)
}
