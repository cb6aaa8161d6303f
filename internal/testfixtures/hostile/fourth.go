package hostile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/elfscan"
)

// Probe names a shape of the fourth campaign against issue 37's rules:
// inputs whose cost is driven by their strings, by names that everything
// shares, by CO-RE flavors, and BTF wrapped in hostile ELF files
// (BuildELF). BuildProbe makes them in any size.
type Probe int

// The probes. [1] is always "int".
const (
	DistinctLong Probe = iota // N structs, each of a distinct name of 200 bytes and one int member of another: a string section of about 400 N bytes
	SharedName                // N structs "x" of one member "x", each under a typedef "x" and a FUNC "x" taking it: every type of one name
	Flavors                   // N structs "task_struct___N" of a member "pid" and "x", and a struct "task_struct": N CO-RE candidates for one name
	numProbes
)

// Probes lists every probe.
func Probes() []Probe {
	ps := make([]Probe, numProbes)
	for i := range ps {
		ps[i] = Probe(i)
	}
	return ps
}

// String names the probe in lower case with dashes, as in "shared-name".
func (p Probe) String() string {
	return [...]string{"distinct-long", "shared-name", "flavors"}[p]
}

// BuildProbe returns the probe p with n as its size parameter.
func BuildProbe(p Probe, n int) ([]byte, error) {
	return marshal(fmt.Sprintf("%v of %d", p, n), func(b *builder.Builder, intID btf.TypeID) error {
		switch p {
		case DistinctLong:
			return distinctLong(b, intID, n)
		case SharedName:
			return sharedName(b, intID, n)
		case Flavors:
			return flavors(b, intID, n)
		}
		return fmt.Errorf("unknown probe %d", p)
	})
}

// distinctLongLen is the length of DistinctLong's names.
const distinctLongLen = 200

func distinctLong(b *builder.Builder, intID btf.TypeID, n int) error {
	pad := strings.Repeat("z", distinctLongLen)
	for i := range n {
		name := fmt.Sprintf("s%d_", i)
		name += pad[len(name):]
		if _, err := b.AddStruct(name, 4, []builder.Member{{Name: "m" + name[1:], Type: intID}}); err != nil {
			return err
		}
	}
	return nil
}

func sharedName(b *builder.Builder, intID btf.TypeID, n int) error {
	for range n {
		s, err := b.AddStruct("x", 4, []builder.Member{{Name: "x", Type: intID}})
		if err != nil {
			return err
		}
		t, err := b.AddTypedef("x", s)
		if err != nil {
			return err
		}
		proto, err := b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: t}})
		if err != nil {
			return err
		}
		if _, err := b.AddFunc("x", proto, btf.LinkageGlobal); err != nil {
			return err
		}
	}
	return nil
}

func flavors(b *builder.Builder, intID btf.TypeID, n int) error {
	ms := []builder.Member{{Name: "pid", Type: intID}, {Name: "x", Type: intID, BitOffset: 32}}
	for i := range n {
		if _, err := b.AddStruct(fmt.Sprintf("task_struct___%d", i), 8, ms); err != nil {
			return err
		}
	}
	_, err := b.AddStruct("task_struct", 8, ms)
	return err
}

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
	data := out.Bytes()
	copy(data, "\x7fELF\x02\x01\x01")
	le.PutUint16(data[16:], 1)   // ET_REL
	le.PutUint16(data[18:], 247) // EM_BPF
	le.PutUint32(data[20:], 1)
	le.PutUint64(data[40:], uint64(shoff))
	le.PutUint16(data[52:], 64)
	le.PutUint16(data[58:], 64)
	if escape {
		le.PutUint16(data[60:], 0)
		le.PutUint16(data[62:], 0xffff) // SHN_XINDEX
	} else {
		le.PutUint16(data[60:], uint16(total))
		le.PutUint16(data[62:], uint16(shstrndx))
	}
	return data
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
