package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Variant12 names a shape of the twelfth campaign (issue 37): mixtures
// of the shapes the eleven before built one at a time, and small inputs
// whose C or layout text is large. A wide struct at the bottom of a deep
// anonymous chain that a FUNC_PROTO takes and returns; prototypes whose
// parameters are pointers to the prototype before (a C declarator nested
// in parameters, not in returns); one anonymous wide struct that many
// typedefs and structs hold, which C prints again at every use; many
// FUNCs of one prototype of 65,535 parameters; and types that refer to
// kinds no type may refer to (FUNC, VAR, DATASEC, DECL_TAG, FUNC_PROTO
// by value). BuildVariant12 makes them in any size.
type Variant12 int

// The variants. [1] is always "int".
const (
	WideDeepProto   Variant12 = iota // a struct "wide" of 1,024 int members under n anonymous structs and unions in turn (each a member "m" and an int), the last under a typedef "t", taken by value, by pointer and as "t" by a FUNC_PROTO returning a pointer to it, under a FUNC "f" and a struct "outer"
	ParamPtrChain                    // n FUNC_PROTOs, each returning int and taking an int and a pointer to the one before, under a FUNC "f", a typedef "chain" and a struct "outer" of a pointer to the last
	SharedAnonWide                   // one anonymous struct of 65,535 int members, held by n typedefs "t<i>" and n structs "h<i>": C inlines it at every use, 2n x 65,535 lines from a 0.8 MB input
	SharedWideProto                  // one FUNC_PROTO of 65,535 named int parameters, under n FUNCs "f<i>" and n typedefs "fp<i>" of a pointer to it: C prints the parameters at every use
	KindSoup                         // n structs "s<i>" (and a struct "outer") whose members are a FUNC, a FUNC_PROTO, a VAR, a DATASEC, a DECL_TAG and void by value, typedefs and arrays of those, and a DATASEC whose entries are the structs and FUNCs
	numVariant12s
)

// Variant12s lists every variant.
func Variant12s() []Variant12 { return upTo(numVariant12s) }

// String names the variant in lower case with dashes, as in "kind-soup".
func (v Variant12) String() string {
	return [...]string{"wide-deep-proto", "param-ptr-chain", "shared-anon-wide", "shared-wide-proto", "kind-soup"}[v]
}

// BuildVariant12 returns the variant v with n as its size parameter.
func BuildVariant12(v Variant12, n int) ([]byte, error) {
	if v < 0 || v >= numVariant12s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return marshal(fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID) error {
		return variant12Adders[v](b, intID, n)
	})
}

// BuildVariant12On is BuildVariant12 as split BTF on base, raw BTF with
// an "int": a vmlinux's, or a hostile shape's.
func BuildVariant12On(base []byte, v Variant12, n int) ([]byte, error) {
	if v < 0 || v >= numVariant12s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return splitOn(base, fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID, _ *btf.Spec) error {
		return variant12Adders[v](b, intID, n)
	})
}

var variant12Adders = [...]func(b *builder.Builder, intID btf.TypeID, n int) error{
	wideDeepProto, paramPtrChain, sharedAnonWide, sharedWideProto, kindSoup}

// intMembers returns n int members named prefix<i>, 4 bytes apart.
func intMembers(prefix string, intID btf.TypeID, n int) []builder.Member {
	ms := make([]builder.Member, n)
	for i := range ms {
		ms[i] = builder.Member{Name: fmt.Sprintf("%s%d", prefix, i), Type: intID, BitOffset: uint32(32 * i)}
	}
	return ms
}

func wideDeepProto(b *builder.Builder, intID btf.TypeID, n int) error {
	const width = 1024
	wide, err := b.AddStruct("wide", 4*width, intMembers("m", intID, width))
	if err != nil {
		return err
	}
	size := uint32(4 * width)
	last, err := linked(wide, n, func(i int, prev btf.TypeID) (btf.TypeID, error) {
		ms := []builder.Member{{Name: "m", Type: prev}, {Name: "x", Type: intID}}
		if i%2 == 1 {
			return b.AddUnion("", size, ms)
		}
		ms[1].BitOffset = 8 * size
		size += 4
		return b.AddStruct("", size, ms)
	})
	if err != nil {
		return err
	}
	td, err := b.AddTypedef("t", last)
	if err != nil {
		return err
	}
	p, err := b.AddPointer(last)
	if err != nil {
		return err
	}
	proto, err := b.AddFuncProto(p, []builder.Param{{Name: "byval", Type: last}, {Name: "byptr", Type: p}, {Name: "bytd", Type: td}})
	if err != nil {
		return err
	}
	if _, err := b.AddFunc("f", proto, btf.LinkageGlobal); err != nil {
		return err
	}
	pp, err := b.AddPointer(proto)
	if err != nil {
		return err
	}
	_, err = b.AddStruct("outer", size+8, []builder.Member{{Name: "in", Type: td}, {Name: "fn", Type: pp, BitOffset: 8 * size}})
	return err
}

func paramPtrChain(b *builder.Builder, intID btf.TypeID, n int) error {
	first, err := b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: intID}})
	if err != nil {
		return err
	}
	last, err := linked(first, n-1, func(_ int, prev btf.TypeID) (btf.TypeID, error) {
		p, err := b.AddPointer(prev)
		if err != nil {
			return 0, err
		}
		return b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: intID}, {Name: "cb", Type: p}})
	})
	if err != nil {
		return err
	}
	if _, err := b.AddFunc("f", last, btf.LinkageGlobal); err != nil {
		return err
	}
	if _, err := b.AddTypedef("chain", last); err != nil {
		return err
	}
	p, err := b.AddPointer(last)
	if err != nil {
		return err
	}
	_, err = b.AddStruct("outer", 8, []builder.Member{{Name: "fn", Type: p}})
	return err
}

func sharedAnonWide(b *builder.Builder, intID btf.TypeID, n int) error {
	anon, err := b.AddStruct("", 4*builder.MaxElems, intMembers("m", intID, builder.MaxElems))
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := b.AddTypedef(fmt.Sprintf("t%d", i), anon); err != nil {
			return err
		}
		if _, err := b.AddStruct(fmt.Sprintf("h%d", i), 4*builder.MaxElems, []builder.Member{{Name: "in", Type: anon}}); err != nil {
			return err
		}
	}
	return nil
}

func sharedWideProto(b *builder.Builder, intID btf.TypeID, n int) error {
	ps := make([]builder.Param, builder.MaxElems)
	for i := range ps {
		ps[i] = builder.Param{Name: fmt.Sprintf("p%d", i), Type: intID}
	}
	proto, err := b.AddFuncProto(intID, ps)
	if err != nil {
		return err
	}
	ptr, err := b.AddPointer(proto)
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := b.AddFunc(fmt.Sprintf("f%d", i), proto, btf.LinkageGlobal); err != nil {
			return err
		}
		if _, err := b.AddTypedef(fmt.Sprintf("fp%d", i), ptr); err != nil {
			return err
		}
	}
	return nil
}

func kindSoup(b *builder.Builder, intID btf.TypeID, n int) error {
	proto, err := b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: intID}})
	if err != nil {
		return err
	}
	fn, err := b.AddFunc("fn", proto, btf.LinkageGlobal)
	if err != nil {
		return err
	}
	v, err := b.AddVar("var", intID, btf.LinkageGlobal)
	if err != nil {
		return err
	}
	sec, err := b.AddDatasec(".data", 4, []btf.VarSecinfo{{Type: v, Size: 4}})
	if err != nil {
		return err
	}
	tag, err := b.AddDeclTag("tag", fn, -1, false)
	if err != nil {
		return err
	}
	odd := []btf.TypeID{fn, proto, v, sec, tag, 0}
	var holders []btf.VarSecinfo
	for i := range n {
		o := odd[i%len(odd)]
		td, err := b.AddTypedef(fmt.Sprintf("k%d", i), o)
		if err != nil {
			return err
		}
		arr, err := b.AddArray(btf.ArrayInfo{Type: o, Index: intID, Nelems: 2})
		if err != nil {
			return err
		}
		s, err := b.AddStruct(fmt.Sprintf("s%d", i), 12, []builder.Member{
			{Name: "a", Type: o}, {Name: "b", Type: td, BitOffset: 32}, {Name: "c", Type: arr, BitOffset: 64}})
		if err != nil {
			return err
		}
		if len(holders) < builder.MaxElems {
			holders = append(holders, btf.VarSecinfo{Type: s, Offset: uint32(12 * i), Size: 12})
		}
	}
	if _, err := b.AddDatasec(".soup", uint32(12*len(holders)), holders); err != nil {
		return err
	}
	_, err = b.AddStruct("outer", 8, []builder.Member{{Name: "f", Type: fn}, {Name: "s", Type: sec, BitOffset: 32}})
	return err
}

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

// Kallsyms12 names a kallsyms shape of the twelfth campaign.
type Kallsyms12 int

// The kallsyms shapes; symbol i is named "sym<i>_".
const (
	KsCommonPrefix Kallsyms12 = iota // n symbols whose names share a prefix of 400 bytes before "sym<i>_", at descending addresses, a half in 1,000 modules
	KsZeroAddrs                      // n symbols all at address 0, as /proc/kallsyms reads without CAP_SYSLOG, a half in 1,000 modules
	KsCRLF                           // n symbols whose lines end in "\r\n", the last without an end
	KsMixedWidths                    // n symbols whose addresses are 8 and 16 hex digits in turn, and upper case every third
	numKallsyms12
)

// Kallsyms12s lists every twelfth kallsyms shape.
func Kallsyms12s() []Kallsyms12 { return upTo(numKallsyms12) }

// String names the kallsyms shape in lower case with dashes.
func (k Kallsyms12) String() string {
	return [...]string{"common-prefix", "zero-addrs", "crlf", "mixed-widths"}[k]
}

// commonPrefix starts every name of KsCommonPrefix.
var commonPrefix = strings.Repeat("p", 400)

// BuildKallsyms12 returns the kallsyms shape k of n symbols.
func BuildKallsyms12(k Kallsyms12, n int) []byte {
	var out []byte
	for i := range n {
		mod := ""
		if i%2 == 1 {
			mod = fmt.Sprintf("\t[m%d]", i%1000)
		}
		addr := 0xffffffff81000000 + uint64(i)*16
		switch k {
		case KsCommonPrefix:
			out = fmt.Appendf(out, "%016x T %ssym%d_%s\n", 0xffffffffc0000000+uint64(n-i)*16, commonPrefix, i, mod)
		case KsZeroAddrs:
			out = fmt.Appendf(out, "%016x T sym%d_%s\n", 0, i, mod)
		case KsCRLF:
			out = fmt.Appendf(out, "%016x t sym%d_\r", addr, i)
			if i < n-1 {
				out = append(out, '\n')
			}
		case KsMixedWidths:
			f := "%016x t sym%d_\n"
			if i%2 == 1 {
				f, addr = "%08x t sym%d_\n", uint64(0xc0000000+i*16)
			}
			if i%3 == 0 {
				f = "%016X t sym%d_\n"
			}
			out = fmt.Appendf(out, f, addr, i)
		}
	}
	return out
}
