package hostile

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Variant11 names a shape of the eleventh campaign (issue 37): kinds and
// edges the ten before did not stress. A prototype of 65,535 parameters
// each of its own type, VARs that overlap out of order in DATASECs,
// TYPE_TAG and DECL_TAG forests with attribute (kind flag) tags on
// members, FLOATs of every size, INT bitfields (the kind flag off) at
// every bit offset, signed ENUM64s of negative values, names that are
// suffixes of one another, and empty names where names are expected.
// BuildVariant11 makes them in any size.
type Variant11 int

// The variants. [1] is always "int".
const (
	DistinctParams Variant11 = iota // a FUNC "f" whose prototype takes n parameters "a<i>" (n <= 65,535), each of its own typedef "p<i>" of a pointer to a struct "s<i>" of one int, and returns a FLOAT "double"
	OverlapVars                     // n VARs "v<i>" of int[1 + i%64], static and global in turn, in DATASECs ".data" of 65,535 at descending, overlapping offsets, each also in a ".bss" at offset 0
	TagForest                       // n structs "s<i>" { p; x; }, p a pointer to 4 TYPE_TAGs of int (every other an attribute), with DECL_TAGs on the struct, each member, a typedef "t<i>" of it, a VAR "v<i>" of that in ".data" and a FUNC "f<i>" and its parameter
	Floats                          // n FLOATs "f<i>" of 4, 8, 2, 12 and 16 bytes in turn, each under a typedef, in an array of 3 and a struct "fs<i>", and every other one a "float" of 4 bytes again
	IntBits                         // n INTs "u<i>" of 8 bytes whose encoding holds bit offset i%32 and width 1+i%32, members of structs "bits" (65,535 members each, the kind flag off) at every bit offset
	SignedEnums                     // n values in signed ENUM64s "e<k>" of 65,535 values "E<k>_<j>" near both ends of int64, and signed ENUMs "s<k>" of as many negative values
	SuffixNames                     // n structs (at most maxSuffixNames) named by the suffixes of one string of n bytes, the shortest first, each of a member named by a suffix of another, the last in a struct "outer"
	EmptyNames                      // structs "outer" of n int members of empty names (65,535 each), a FUNC "f" whose prototype takes n unnamed parameters, and ENUMs of n values of empty names
	numVariant11s
)

// Variant11s lists every variant.
func Variant11s() []Variant11 { return upTo(numVariant11s) }

// String names the variant in lower case with dashes, as in "tag-forest".
func (v Variant11) String() string {
	return [...]string{"distinct-params", "overlap-vars", "tag-forest", "floats", "int-bits", "signed-enums", "suffix-names", "empty-names"}[v]
}

// BuildVariant11 returns the variant v with n as its size parameter.
func BuildVariant11(v Variant11, n int) ([]byte, error) {
	if v < 0 || v >= numVariant11s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return marshal(fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID) error {
		return variant11Adders[v](b, intID, n)
	})
}

// BuildVariant11On is BuildVariant11 as split BTF on base, raw BTF with
// an "int": a vmlinux's, or a hostile shape's (a module on an odd base).
func BuildVariant11On(base []byte, v Variant11, n int) ([]byte, error) {
	if v < 0 || v >= numVariant11s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return splitOn(base, fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID, _ *btf.Spec) error {
		return variant11Adders[v](b, intID, n)
	})
}

// BuildBaseRefs returns split BTF on base of n structs "r<i>", each
// embedding one of base's named structs by value and pointing to
// another, the base's structs of names no other struct or union has in
// turn: a module whose types hold the kernel's, which a distilled base
// must keep whole (the embedded) or as forwards (the pointed to), and
// which relocates from its distilled base back onto base.
func BuildBaseRefs(base []byte, n int) ([]byte, error) {
	return splitOn(base, fmt.Sprintf("%d base refs", n), func(b *builder.Builder, _ btf.TypeID, s *btf.Spec) error {
		type rec struct {
			id   btf.TypeID
			size uint32
		}
		var recs []rec
		seen := map[string]int{}
		for id := btf.TypeID(1); int(id) <= s.NumTypes(); id++ {
			if t, err := s.TypeByID(id); err == nil && (t.Kind() == btf.KindStruct || t.Kind() == btf.KindUnion) {
				seen[t.Name()]++
			}
		}
		for id := btf.TypeID(1); int(id) <= s.NumTypes(); id++ {
			t, err := s.TypeByID(id)
			if err != nil {
				return err
			}
			// A name of several records would make the module's
			// distilled base ambiguous on its own base, which the
			// kernel and libbpf refuse to relocate.
			if t.Kind() != btf.KindStruct || t.Name() == "" || seen[t.Name()] > 1 {
				continue
			}
			size, err := s.SizeOf(id)
			if err != nil || size == 0 || size > 1<<20 {
				continue
			}
			recs = append(recs, rec{id, size})
		}
		if len(recs) < 2 {
			return fmt.Errorf("base has %d named structs", len(recs))
		}
		for i := range n {
			by, to := recs[i%len(recs)], recs[(i*7+1)%len(recs)]
			p, err := b.AddPointer(to.id)
			if err != nil {
				return err
			}
			off := (by.size + 7) / 8 * 8
			if _, err := b.AddStruct(fmt.Sprintf("r%d", i), off+8, []builder.Member{
				{Name: "in", Type: by.id}, {Name: "to", Type: p, BitOffset: 8 * off},
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

var variant11Adders = [...]func(b *builder.Builder, intID btf.TypeID, n int) error{
	distinctParams, overlapVars, tagForest, floats, intBits, signedEnums, suffixNames, emptyNames}

func distinctParams(b *builder.Builder, intID btf.TypeID, n int) error {
	ps := make([]builder.Param, n)
	for i := range n {
		s, err := b.AddStruct(fmt.Sprintf("s%d", i), 4, []builder.Member{{Name: "x", Type: intID}})
		if err != nil {
			return err
		}
		p, err := b.AddPointer(s)
		if err != nil {
			return err
		}
		td, err := b.AddTypedef(fmt.Sprintf("p%d", i), p)
		if err != nil {
			return err
		}
		ps[i] = builder.Param{Name: fmt.Sprintf("a%d", i), Type: td}
	}
	d, err := b.AddFloat("double", 8)
	if err != nil {
		return err
	}
	proto, err := b.AddFuncProto(d, ps)
	if err != nil {
		return err
	}
	_, err = b.AddFunc("f", proto, btf.LinkageGlobal)
	return err
}

func overlapVars(b *builder.Builder, intID btf.TypeID, n int) error {
	arrs := make([]btf.TypeID, 64)
	for k := range arrs {
		var err error
		if arrs[k], err = b.AddArray(btf.ArrayInfo{Type: intID, Index: intID, Nelems: uint32(k + 1)}); err != nil {
			return err
		}
	}
	var data, bss []btf.VarSecinfo
	flush := func(force bool) error {
		if len(data) == 0 || !force && len(data) < 65535 {
			return nil
		}
		if _, err := b.AddDatasec(".data", 256, data); err != nil {
			return err
		}
		if _, err := b.AddDatasec(".bss", 256, bss); err != nil {
			return err
		}
		data, bss = data[:0], bss[:0]
		return nil
	}
	for i := range n {
		k := i % 64
		v, err := b.AddVar(fmt.Sprintf("v%d", i), arrs[k], btf.Linkage(i%2))
		if err != nil {
			return err
		}
		size := uint32(4 * (k + 1))
		data = append(data, btf.VarSecinfo{Type: v, Offset: uint32(4 * ((n - i) % 64)), Size: size})
		bss = append(bss, btf.VarSecinfo{Type: v, Offset: 0, Size: size})
		if err := flush(false); err != nil {
			return err
		}
	}
	return flush(true)
}

func tagForest(b *builder.Builder, intID btf.TypeID, n int) error {
	vs := make([]btf.VarSecinfo, 0, n)
	for i := range n {
		t := intID
		for j := range 4 {
			var err error
			if t, err = b.AddTypeTag(fmt.Sprintf("tt%d_%d", i%16, j), t, j%2 == 1); err != nil {
				return err
			}
		}
		p, err := b.AddPointer(t)
		if err != nil {
			return err
		}
		s, err := b.AddStruct(fmt.Sprintf("s%d", i), 16, []builder.Member{{Name: "p", Type: p}, {Name: "x", Type: intID, BitOffset: 64}})
		if err != nil {
			return err
		}
		td, err := b.AddTypedef(fmt.Sprintf("t%d", i), s)
		if err != nil {
			return err
		}
		v, err := b.AddVar(fmt.Sprintf("v%d", i), td, btf.LinkageGlobal)
		if err != nil {
			return err
		}
		vs = append(vs, btf.VarSecinfo{Type: v, Offset: uint32(16 * i), Size: 16})
		proto, err := b.AddFuncProto(intID, []builder.Param{{Name: "a", Type: td}})
		if err != nil {
			return err
		}
		f, err := b.AddFunc(fmt.Sprintf("f%d", i), proto, btf.LinkageGlobal)
		if err != nil {
			return err
		}
		for _, tag := range []struct {
			on  btf.TypeID
			idx int32
		}{{s, -1}, {s, 0}, {s, 1}, {td, -1}, {v, -1}, {f, -1}, {f, 0}} {
			if _, err := b.AddDeclTag(fmt.Sprintf("d%d", (i+int(tag.idx))%16), tag.on, tag.idx, tag.idx == 0); err != nil {
				return err
			}
		}
		if len(vs) == 65535 || i == n-1 {
			if _, err := b.AddDatasec(".data", uint32(16*(i+1)), vs); err != nil {
				return err
			}
			vs = vs[:0]
		}
	}
	return nil
}

func floats(b *builder.Builder, intID btf.TypeID, n int) error {
	for i := range n {
		size := [...]uint32{4, 8, 2, 12, 16}[i%5]
		f, err := b.AddFloat(fmt.Sprintf("f%d", i), size)
		if err != nil {
			return err
		}
		td, err := b.AddTypedef(fmt.Sprintf("ft%d", i), f)
		if err != nil {
			return err
		}
		arr, err := b.AddArray(btf.ArrayInfo{Type: td, Index: intID, Nelems: 3})
		if err != nil {
			return err
		}
		if _, err := b.AddStruct(fmt.Sprintf("fs%d", i), 4*size, []builder.Member{{Name: "a", Type: td}, {Name: "b", Type: arr, BitOffset: 8 * size}}); err != nil {
			return err
		}
		if i%2 == 0 {
			if _, err := b.AddFloat("float", 4); err != nil {
				return err
			}
		}
	}
	return nil
}

func intBits(b *builder.Builder, _ btf.TypeID, n int) error {
	ms := make([]builder.Member, 0, min(n, 65535))
	for i := range n {
		u, err := b.AddInt(fmt.Sprintf("u%d", i), 8, btf.IntInfo{Offset: uint8(i % 32), Bits: uint8(1 + i%32)})
		if err != nil {
			return err
		}
		ms = append(ms, builder.Member{Name: fmt.Sprintf("m%d", i), Type: u, BitOffset: uint32(len(ms))})
		if len(ms) == 65535 || i == n-1 {
			if _, err := b.AddStruct("bits", uint32(len(ms)+64+63)/64*8, ms); err != nil {
				return err
			}
			ms = ms[:0]
		}
	}
	return nil
}

func signedEnums(b *builder.Builder, _ btf.TypeID, n int) error {
	for k := 0; n > 0; k++ {
		m := min(n, 65535)
		n -= m
		e64 := make([]builder.Enumerator, m)
		e32 := make([]builder.Enumerator, m)
		for j := range m {
			v := int64(-1)<<63 + int64(j/2)
			if j%2 == 1 {
				v = 1<<63 - 1 - int64(j/2)
			}
			e64[j] = builder.Enumerator{Name: fmt.Sprintf("E%d_%d", k, j), Value: uint64(v)}
			e32[j] = builder.Enumerator{Name: fmt.Sprintf("S%d_%d", k, j), Value: uint64(int64(-1 - j))}
		}
		if _, err := b.AddEnum64(fmt.Sprintf("e%d", k), 8, true, e64); err != nil {
			return err
		}
		if _, err := b.AddEnum(fmt.Sprintf("s%d", k), 4, true, e32); err != nil {
			return err
		}
	}
	return nil
}

func suffixNames(b *builder.Builder, intID btf.TypeID, n int) error {
	n = min(n, maxSuffixNames)
	s := suffixString(n)
	last := intID
	for i := range n {
		name := s[n-1-i:]
		member := s[n-1-(i*31)%n:]
		var err error
		if last, err = b.AddStruct(name, 4, []builder.Member{{Name: member, Type: intID}}); err != nil {
			return err
		}
	}
	_, err := b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: last}})
	return err
}

func emptyNames(b *builder.Builder, intID btf.TypeID, n int) error {
	ms := make([]builder.Member, 0, min(n, 65535))
	ps := make([]builder.Param, 0, min(n, 65535))
	es := make([]builder.Enumerator, 0, min(n, 65535))
	for i := range n {
		ms = append(ms, builder.Member{Type: intID, BitOffset: uint32(32 * len(ms))})
		ps = append(ps, builder.Param{Type: intID})
		es = append(es, builder.Enumerator{Value: uint64(i)})
		if len(ms) < 65535 && i < n-1 {
			continue
		}
		if _, err := b.AddStruct("outer", uint32(4*len(ms)), ms); err != nil {
			return err
		}
		proto, err := b.AddFuncProto(intID, ps)
		if err != nil {
			return err
		}
		if _, err := b.AddFunc("f", proto, btf.LinkageGlobal); err != nil {
			return err
		}
		if _, err := b.AddEnum("", 4, false, es); err != nil {
			return err
		}
		ms, ps, es = ms[:0], ps[:0], es[:0]
	}
	return nil
}

// Kallsyms11 names a /proc/kallsyms text of the eleventh campaign, for
// ksym: what the ninth's did not write.
type Kallsyms11 int

// The kallsyms shapes; every symbol i is named "sym<i>_" and more,
// except in DupNames.
const (
	KsUnsorted  Kallsyms11 = iota // n symbols at shuffled addresses, a third in 300 modules, the module lines scattered
	KsHugeNames                   // n symbols of names of 4,000 to 8,000 bytes (past KSYM_NAME_LEN's 512), in 100 modules of 200-byte names
	KsDupNames                    // n symbols all named "sym1_" at distinct addresses, in vmlinux and 1,000 modules in turn
	KsOddLines                    // n symbols of every type letter, upper and lower, separated by spaces and tabs in turn, the module names of dots and dashes
	numKallsyms11
)

// Kallsyms11s lists every eleventh kallsyms shape.
func Kallsyms11s() []Kallsyms11 { return upTo(numKallsyms11) }

// String names the kallsyms shape in lower case with dashes.
func (k Kallsyms11) String() string {
	return [...]string{"unsorted", "huge-names", "dup-names", "odd-lines"}[k]
}

// BuildKallsyms11 returns the kallsyms shape k of n symbols.
func BuildKallsyms11(k Kallsyms11, n int) []byte {
	var out []byte
	r := rand.New(rand.NewPCG(11, uint64(n)))
	perm := r.Perm(n)
	long := strings.Repeat("h", 1024)
	const letters = "tTdDbBrRaAuUvVwWnN?"
	for i := range n {
		name := fmt.Sprintf("sym%d_", i)
		addr := 0xffffffffc0000000 + uint64(i)*16
		switch k {
		case KsUnsorted:
			addr = 0xffffffffc0000000 + uint64(perm[i])*16
			mod := ""
			if i%3 == 0 {
				mod = fmt.Sprintf("\t[m%d]", r.IntN(300))
			}
			out = fmt.Appendf(out, "%016x t %s%s\n", addr, name, mod)
		case KsHugeNames:
			name += long[:513+i%512-len(name)]
			mod := fmt.Sprintf("mod%d_", i%100)
			out = fmt.Appendf(out, "%016x t %s\t[%s%s]\n", addr, name, mod, long[:256-len(mod)])
		case KsDupNames:
			mod := ""
			if i%2 == 1 {
				mod = fmt.Sprintf("\t[m%d]", i%1000)
			}
			out = fmt.Appendf(out, "%016x T sym1_%s\n", addr, mod)
		case KsOddLines:
			sep := " "
			if i%2 == 1 {
				sep = "\t"
			}
			mod := ""
			if i%5 == 0 {
				mod = fmt.Sprintf("\t[mod.%d-x_y]", i%50)
			}
			out = fmt.Appendf(out, "%016x%s%c%s%s%s\n", addr, sep, letters[i%len(letters)], sep, name, mod)
		}
	}
	return out
}
