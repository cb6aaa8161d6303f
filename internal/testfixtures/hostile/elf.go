package hostile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/elfscan"
)

// ELFShape tells BuildELF how to wrap BTF in an ELF file.
type ELFShape struct {
	Sections int  // empty sections before .BTF (e_shnum escapes to section 0's size past 65,279)
	NameLen  int  // the length of the one name every empty section shares
	TwoBTF   bool // a second section named .BTF, of garbage, after the real one
	Odd      bool // the .BTF section's data at an odd offset, its alignment 1
}

// BuildELF returns a little-endian ELF64 relocatable file that holds raw
// in a .BTF section, shaped as e says: the section headers of many
// sections whose names share one long string cost a reader that copies
// each name the name's length for every section.
func BuildELF(raw []byte, e ELFShape) []byte {
	long := strings.Repeat("n", e.NameLen)
	strtab := "\x00.shstrtab\x00.BTF\x00" + long + "\x00"
	const shstrName, btfName, longName = 1, 11, 16
	var out bytes.Buffer
	out.Write(make([]byte, 64))
	strOff := out.Len()
	out.WriteString(strtab)
	for out.Len()%8 != 0 {
		out.WriteByte(0)
	}
	if e.Odd {
		out.WriteByte(0)
	}
	btfOff := out.Len()
	out.Write(raw)
	garbage := out.Len()
	if e.TwoBTF {
		out.Write(bytes.Repeat([]byte{0xff}, 64))
	}
	for out.Len()%8 != 0 {
		out.WriteByte(0)
	}
	shoff := out.Len()
	total := 1 + e.Sections + 2
	if e.TwoBTF {
		total++
	}
	st := startSections(&out, total)
	sh := st.add
	for range e.Sections {
		sh(longName, uint32(1), uint64(strOff), 0, 1, 0) // SHT_PROGBITS, empty
	}
	align := uint64(4)
	if e.Odd {
		align = 1
	}
	sh(btfName, 1, uint64(btfOff), uint64(len(raw)), align, 0)
	if e.TwoBTF {
		sh(btfName, 1, uint64(garbage), 64, 1, 0)
	}
	sh(shstrName, 3, uint64(strOff), uint64(len(strtab)), 1, 0)
	return st.finish(shoff)
}

// sections writes the section headers of a hostile ELF file (BuildELF,
// BuildELF12) after its data: section 0 first, holding the count when
// it escapes e_shnum, the names' section last.
type sections struct {
	out   *bytes.Buffer
	total int
}

// startSections writes section 0 of a table of total sections to out.
func startSections(out *bytes.Buffer, total int) *sections {
	st := &sections{out: out, total: total}
	if st.escape() {
		st.add(0, 0, 0, uint64(total), 0, uint32(total-1))
	} else {
		st.add(0, 0, 0, 0, 0, 0)
	}
	return st
}

// escape reports whether the count is past e_shnum's range: then it is in
// section 0's size, and the names' index in its link.
func (st *sections) escape() bool { return st.total >= 0xff00 }

// add writes one Elf64_Shdr.
func (st *sections) add(name, typ uint32, off, size, align uint64, link uint32) {
	le := binary.LittleEndian
	var h [64]byte
	le.PutUint32(h[0:], name)
	le.PutUint32(h[4:], typ)
	le.PutUint64(h[24:], off)
	le.PutUint64(h[32:], size)
	le.PutUint32(h[40:], link)
	le.PutUint64(h[48:], align)
	st.out.Write(h[:])
}

// finish fills in the ELF header of an EM_BPF file whose section headers
// start at shoff, and returns the file.
func (st *sections) finish(shoff int) []byte {
	data := st.out.Bytes()
	putELFHeader(data, 247, shoff) // EM_BPF
	le := binary.LittleEndian
	if st.escape() {
		le.PutUint16(data[60:], 0)
		le.PutUint16(data[62:], 0xffff) // SHN_XINDEX
	} else {
		le.PutUint16(data[60:], uint16(st.total))
		le.PutUint16(data[62:], uint16(st.total-1))
	}
	return data
}

// putELFHeader fills in the ELF header at the start of data: a
// little-endian ELF64 relocatable file for machine, whose section headers
// start at shoff. The caller sets their number and the names' index.
func putELFHeader(data []byte, machine uint16, shoff int) {
	le := binary.LittleEndian
	copy(data, "\x7fELF\x02\x01\x01")
	le.PutUint16(data[16:], 1) // ET_REL
	le.PutUint16(data[18:], machine)
	le.PutUint32(data[20:], 1)
	le.PutUint64(data[40:], uint64(shoff))
	le.PutUint16(data[52:], 64)
	le.PutUint16(data[58:], 64)
}

// SharedSectionNames returns BuildELF's file of n empty sections whose
// names all point at one string of nameLen bytes, around BTF of 10
// pointers.
func SharedSectionNames(n, nameLen int) ([]byte, error) {
	raw, err := Build(Pointers, 10)
	if err != nil {
		return nil, err
	}
	return BuildELF(raw, ELFShape{Sections: n, NameLen: nameLen}), nil
}

// CheckSharedNames fails tb unless parse refuses SharedSectionNames(20,000,
// 4 KB), 1.3 MB, with elfscan.ErrNames before allocating a MB: debug/elf
// would copy the name for each section, 80 MB.
func CheckSharedNames(tb testing.TB, parse func(data []byte) error) {
	tb.Helper()
	data, err := SharedSectionNames(20_000, 4096)
	if err != nil {
		tb.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = parse(data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, elfscan.ErrNames) {
		tb.Errorf("%v, want elfscan.ErrNames", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		tb.Errorf("%d bytes allocated", n)
	}
}
