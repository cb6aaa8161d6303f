package hostile

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Variant names a shape of the ninth campaign (issue 37, "inputs that are
// not given to you, built the same ways"): the families of the earlier
// campaigns varied in the kinds that make them up: nesting mixed with
// width, unions for structs, self-embedding through arrays, typedefs and
// anonymous unions, chains of qualifiers, tags and prototypes' returns,
// FUNCs, VARs and DATASECs, DECL_TAGs on members, ENUM64s, bitfields, huge
// and zero sizes, and many copies of one shape. BuildVariant makes them in
// any size.
type Variant int

// The variants. [1] is always "int".
const (
	WideOfDeep     Variant = iota // a struct "wide" of N members (N <= 65,535), each its own chain of 16 anonymous unions and structs in turn, each the only member of the next
	DeepOfWide                    // N levels of anonymous unions and structs in turn, each of 32 int members and the level before, in a struct "outer"
	UnionNest                     // N anonymous unions, each of an int and the one before, in a union "outer"
	SelfTypedefArr                // an anonymous union { int a; t b; }, a typedef "t" of an array of N of it, and a struct "outer" of the union: self-embedding through an array, a typedef and a union
	SelfAnonUnions                // a struct "s" whose member is N anonymous unions, each the only member of the next, the innermost of "s": self-embedding through N anonymous levels
	QualMix                       // N types of CONST, VOLATILE, RESTRICT, TYPEDEF and TYPE_TAG in an irregular order, each of the one before, the first of a struct with bitfields, under a VAR "v" in a DATASEC ".data" and a FUNC "f" taking it
	ReturnChain                   // N FUNC_PROTOs, each returning a pointer to the one before and taking it and an int, under a FUNC "f": a C declarator N deep
	ArrayTypedefs                 // N arrays of 3 and typedefs in turn, each of the one before, so that the sizes overflow, in a struct "outer"
	TaggedWide                    // a struct "s" of N members (N <= 65,535), each its own anonymous struct of one int, with a DECL_TAG on each member, on each anonymous struct and a FUNC "f" of N parameters of "s" with a DECL_TAG on each parameter
	Bitfields                     // a struct and a union "bits" of N bitfield members (N <= 65,535) of int, an ENUM64 and a typedef of a CONST int, 1 to 31 bits wide, packed up to the kind flag's 16 MiB of bits
	HugeSizes                     // N structs "h0", "h1", ... of 2^32-1 bytes, each with a member at the last byte and an array of 2^32-1 of the one before, and N empty structs of size 0 holding 3 members at offset 0
	CopiesDeep                    // N copies of 64 nested anonymous records in a struct "outer": every copy the same types
	CopiesSelf                    // N copies of a struct "s" that embeds itself through a typedef and an anonymous union: the same invalid type N times
	Enum64Edges                   // N ENUM64s of 1, 2, 4 and 8 bytes, signed and unsigned, of the extreme values, and ENUMs of 0 and 3 bytes, each in its own struct member
	MixedRing                     // a ring of N types of CONST, VOLATILE, TYPEDEF "t", PTR, anonymous struct (a member "m") and ARRAY of 1 in turn, each of the next, the last of the first, under a VAR "v": BuildDWARF9's D9MixedRing as BTF
	numVariants
)

// Variants lists every variant.
func Variants() []Variant { return upTo(numVariants) }

// String names the variant in lower case with dashes, as in "wide-of-deep".
func (v Variant) String() string {
	return [...]string{"wide-of-deep", "deep-of-wide", "union-nest", "self-typedef-arr", "self-anon-unions",
		"qual-mix", "return-chain", "array-typedefs", "tagged-wide", "bitfields", "huge-sizes",
		"copies-deep", "copies-self", "enum64-edges", "mixed-ring"}[v]
}

// BuildVariant returns the variant v with n as its size parameter.
func BuildVariant(v Variant, n int) ([]byte, error) {
	if v < 0 || v >= numVariants {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	add := variantAdders[v]
	return marshal(fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID) error {
		return add(b, intID, n)
	})
}

// variantAdders add each variant to a Builder whose int is intID.
var variantAdders = [...]func(b *builder.Builder, intID btf.TypeID, n int) error{wideOfDeep, deepOfWide, unionNest,
	selfTypedefArr, selfAnonUnions, qualMix, returnChain, arrayTypedefs, taggedWide, bitfields, hugeSizes,
	copiesDeep, copiesSelf, enum64Edges, mixedRing}

// anonChain adds depth anonymous records of 4 bytes, unions and structs
// in turn, each the only member "m" of the next, the first of inner, and
// returns the last.
func anonChain(b *builder.Builder, inner btf.TypeID, depth int) (btf.TypeID, error) {
	var err error
	for i := 0; i < depth && err == nil; i++ {
		ms := []builder.Member{{Name: "m", Type: inner}}
		if i%2 == 0 {
			inner, err = b.AddUnion("", 4, ms)
		} else {
			inner, err = b.AddStruct("", 4, ms)
		}
	}
	return inner, err
}

func wideOfDeep(b *builder.Builder, intID btf.TypeID, n int) error {
	ms := make([]builder.Member, n)
	for i := range ms {
		t, err := anonChain(b, intID, 16)
		if err != nil {
			return err
		}
		ms[i] = builder.Member{Name: fmt.Sprintf("w%d", i), Type: t, BitOffset: uint32(32 * i)}
	}
	_, err := b.AddStruct("wide", uint32(4*n), ms)
	return err
}

func deepOfWide(b *builder.Builder, intID btf.TypeID, n int) error {
	const width = 32
	inner, size := intID, uint32(4)
	for i := range n {
		ms := make([]builder.Member, width+1)
		for j := range width {
			ms[j] = builder.Member{Name: fmt.Sprintf("f%d", j), Type: intID}
		}
		ms[width] = builder.Member{Name: "in", Type: inner}
		var err error
		if i%2 == 0 {
			inner, err = b.AddUnion("", size, ms)
		} else {
			for j := range ms {
				ms[j].BitOffset = uint32(32 * j)
			}
			size += 4 * width
			inner, err = b.AddStruct("", size, ms)
		}
		if err != nil {
			return err
		}
	}
	_, err := b.AddStruct("outer", size, []builder.Member{{Name: "m", Type: inner}})
	return err
}

func unionNest(b *builder.Builder, intID btf.TypeID, n int) error {
	inner := intID
	for range n {
		var err error
		if inner, err = b.AddUnion("", 4, []builder.Member{{Name: "i", Type: intID}, {Name: "m", Type: inner}}); err != nil {
			return err
		}
	}
	_, err := b.AddUnion("outer", 4, []builder.Member{{Name: "m", Type: inner}})
	return err
}

func selfTypedefArr(b *builder.Builder, intID btf.TypeID, n int) error {
	u := b.NextID()
	if _, err := b.AddUnion("", 4, []builder.Member{{Name: "a", Type: intID}, {Name: "b", Type: u + 2}}); err != nil {
		return err
	}
	if _, err := b.AddArray(btf.ArrayInfo{Type: u, Index: intID, Nelems: uint32(n)}); err != nil {
		return err
	}
	if _, err := b.AddTypedef("t", u+1); err != nil {
		return err
	}
	_, err := b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: u}})
	return err
}

func selfAnonUnions(b *builder.Builder, intID btf.TypeID, n int) error {
	s := b.NextID()
	// s's member is the last union, added after it: s+n.
	if _, err := b.AddStruct("s", 8, []builder.Member{{Name: "a", Type: intID}, {Name: "u", Type: s + btf.TypeID(n), BitOffset: 32}}); err != nil {
		return err
	}
	_, err := anonChain(b, s, n)
	return err
}

func qualMix(b *builder.Builder, intID btf.TypeID, n int) error {
	base, err := b.AddStruct("bf", 8, []builder.Member{
		{Name: "a", Type: intID, BitfieldSize: 3}, {Name: "b", Type: intID, BitOffset: 3, BitfieldSize: 29},
		{Name: "c", Type: intID, BitOffset: 32, BitfieldSize: 1},
	})
	if err != nil {
		return err
	}
	t := base
	x := uint32(2463534242) // xorshift32: an order no campaign used
	for i := range n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		switch x % 5 {
		case 0:
			t, err = b.AddConst(t)
		case 1:
			t, err = b.AddVolatile(t)
		case 2:
			t, err = b.AddRestrict(t)
		case 3:
			t, err = b.AddTypedef(fmt.Sprintf("q%d", i), t)
		case 4:
			t, err = b.AddTypeTag("user", t, false)
		}
		if err != nil {
			return err
		}
	}
	v, err := b.AddVar("v", t, btf.LinkageGlobal)
	if err != nil {
		return err
	}
	if _, err := b.AddDatasec(".data", 8, []btf.VarSecinfo{{Type: v, Size: 8}}); err != nil {
		return err
	}
	p, err := b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: t}})
	if err != nil {
		return err
	}
	_, err = b.AddFunc("f", p, btf.LinkageGlobal)
	return err
}

func returnChain(b *builder.Builder, intID btf.TypeID, n int) error {
	prev := intID
	for range n {
		p, err := b.AddPointer(prev)
		if err != nil {
			return err
		}
		if prev, err = b.AddFuncProto(p, []builder.Param{{Name: "a", Type: p}, {Name: "i", Type: intID}}); err != nil {
			return err
		}
	}
	_, err := b.AddFunc("f", prev, btf.LinkageGlobal)
	return err
}

func arrayTypedefs(b *builder.Builder, intID btf.TypeID, n int) error {
	t := intID
	var err error
	for i := 0; i < n && err == nil; i++ {
		if i%2 == 0 {
			t, err = b.AddArray(btf.ArrayInfo{Type: t, Index: intID, Nelems: 3})
		} else {
			t, err = b.AddTypedef(fmt.Sprintf("a%d", i), t)
		}
	}
	if err != nil {
		return err
	}
	_, err = b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: t}})
	return err
}

func taggedWide(b *builder.Builder, intID btf.TypeID, n int) error {
	ms := make([]builder.Member, n)
	for i := range ms {
		t, err := b.AddStruct("", 4, []builder.Member{{Name: "x", Type: intID}})
		if err != nil {
			return err
		}
		if _, err := b.AddDeclTag("anon", t, -1, false); err != nil {
			return err
		}
		ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: t, BitOffset: uint32(32 * i)}
	}
	s, err := b.AddStruct("s", uint32(4*n), ms)
	if err != nil {
		return err
	}
	ps := make([]builder.Param, n)
	for i := range n {
		if _, err := b.AddDeclTag(fmt.Sprintf("t%d", i%64), s, int32(i), i%2 == 0); err != nil {
			return err
		}
		ps[i] = builder.Param{Name: fmt.Sprintf("p%d", i), Type: s}
	}
	p, err := b.AddFuncProto(intID, ps)
	if err != nil {
		return err
	}
	f, err := b.AddFunc("f", p, btf.LinkageGlobal)
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := b.AddDeclTag("p", f, int32(i), false); err != nil {
			return err
		}
	}
	return nil
}

func bitfields(b *builder.Builder, intID btf.TypeID, n int) error {
	e, err := b.AddEnum64("e", 8, true, []builder.Enumerator{{Name: "E_MIN", Value: 1 << 63}, {Name: "E_MAX", Value: 1<<63 - 1}})
	if err != nil {
		return err
	}
	c, err := b.AddConst(intID)
	if err != nil {
		return err
	}
	td, err := b.AddTypedef("ci", c)
	if err != nil {
		return err
	}
	types := []btf.TypeID{intID, e, td}
	ms := make([]builder.Member, n)
	off := uint32(0)
	const maxBits = 1<<24 - 64
	for i := range ms {
		w := uint32(1 + i%31)
		if off+w > maxBits {
			off = 0
		}
		ms[i] = builder.Member{Name: fmt.Sprintf("b%d", i), Type: types[i%3], BitOffset: off, BitfieldSize: w}
		off += w
	}
	size := uint32(maxBits / 8)
	if _, err := b.AddStruct("bits", size, ms); err != nil {
		return err
	}
	for i := range ms {
		ms[i].BitOffset = 0
	}
	_, err = b.AddUnion("bits", 8, ms)
	return err
}

func hugeSizes(b *builder.Builder, intID btf.TypeID, n int) error {
	const huge = 1<<32 - 1
	prev := intID
	for i := range n {
		a, err := b.AddArray(btf.ArrayInfo{Type: prev, Index: intID, Nelems: huge})
		if err != nil {
			return err
		}
		if prev, err = b.AddStruct(fmt.Sprintf("h%d", i), huge, []builder.Member{
			{Name: "a", Type: a}, {Name: "last", Type: intID, BitOffset: (huge - 4) * 8 % (1 << 32)},
		}); err != nil {
			return err
		}
	}
	for i := range n {
		if _, err := b.AddStruct(fmt.Sprintf("z%d", i), 0, []builder.Member{
			{Name: "x", Type: intID}, {Name: "y", Type: prev}, {Name: "z", Type: intID},
		}); err != nil {
			return err
		}
	}
	return nil
}

func copiesDeep(b *builder.Builder, intID btf.TypeID, n int) error {
	for range n {
		t, err := anonChain(b, intID, 64)
		if err != nil {
			return err
		}
		if _, err := b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: t}}); err != nil {
			return err
		}
	}
	return nil
}

func copiesSelf(b *builder.Builder, intID btf.TypeID, n int) error {
	for range n {
		// struct s { int a; union { t u; } b; }; typedef struct s t;
		s := b.NextID()
		if _, err := b.AddStruct("s", 8, []builder.Member{{Name: "a", Type: intID}, {Name: "b", Type: s + 1, BitOffset: 32}}); err != nil {
			return err
		}
		if _, err := b.AddUnion("", 4, []builder.Member{{Name: "u", Type: s + 2}}); err != nil {
			return err
		}
		if _, err := b.AddTypedef("t", s); err != nil {
			return err
		}
	}
	return nil
}

func enum64Edges(b *builder.Builder, intID btf.TypeID, n int) error {
	var ms []builder.Member
	add := func(t btf.TypeID, err error) error {
		if err == nil {
			ms = append(ms, builder.Member{Name: fmt.Sprintf("m%d", len(ms)), Type: t})
		}
		return err
	}
	for i := range n {
		size := uint32(1) << (i % 4)
		vals := []builder.Enumerator{{Name: fmt.Sprintf("A%d", i), Value: 0}, {Name: fmt.Sprintf("B%d", i), Value: ^uint64(0)},
			{Name: fmt.Sprintf("C%d", i), Value: 1 << 63}, {Name: fmt.Sprintf("D%d", i), Value: 1<<63 - 1}}
		if err := add(b.AddEnum64(fmt.Sprintf("e%d", i), size, i%2 == 0, vals)); err != nil {
			return err
		}
		if err := add(b.AddEnum(fmt.Sprintf("z%d", i), uint32(3*(i%2)), i%2 == 1, []builder.Enumerator{{Name: fmt.Sprintf("Z%d", i), Value: 0xffffffff}})); err != nil {
			return err
		}
	}
	_, err := b.AddStruct("outer", 8, ms)
	return err
}

func mixedRing(b *builder.Builder, intID btf.TypeID, n int) error {
	first := b.NextID()
	var err error
	for i := 0; i < n && err == nil; i++ {
		next := first + btf.TypeID((i+1)%n)
		switch i % 6 {
		case 0:
			_, err = b.AddConst(next)
		case 1:
			_, err = b.AddVolatile(next)
		case 2:
			_, err = b.AddTypedef("t", next)
		case 3:
			_, err = b.AddPointer(next)
		case 4:
			_, err = b.AddStruct("", 4, []builder.Member{{Name: "m", Type: next}})
		case 5:
			_, err = b.AddArray(btf.ArrayInfo{Type: next, Index: intID, Nelems: 1})
		}
	}
	if err == nil {
		_, err = b.AddVar("v", first, btf.LinkageGlobal)
	}
	return err
}

// BuildVariantOn returns the variant v with n as its size parameter as
// split BTF in host byte order on base (raw BTF that has an "int", such as
// a vmlinux's): a module built the same ways, on a kernel's types, whose
// int is the base's and which ends with a struct "on_base" holding the
// base's last struct "name" when it has one (task_struct for a vmlinux).
func BuildVariantOn(base []byte, v Variant, n int, name string) ([]byte, error) {
	if v < 0 || v >= numVariants {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return splitOn(base, fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID, s *btf.Spec) error {
		if err := variantAdders[v](b, intID, n); err != nil {
			return err
		}
		st, err := s.FindOne(name, btf.FindOptions{Kind: btf.KindStruct})
		if err != nil {
			return nil
		}
		size, err := s.SizeOf(st.ID())
		if err != nil {
			return err
		}
		_, err = b.AddStruct("on_base", size, []builder.Member{{Name: "m", Type: st.ID()}})
		return err
	})
}

// KallsymsVariant names a /proc/kallsyms text of the ninth campaign, for
// ksym: the shapes of Kallsyms varied.
type KallsymsVariant int

// The kallsyms variants; every symbol i is named "sym<i>_" and more.
const (
	KsInterleaved KallsymsVariant = iota // n module symbols, each in another module than the line before, from 1,000 modules in turn: every module's lines scattered
	KsSameAddr                           // n symbols at one address, half in vmlinux, half in 100 modules
	KsLongNames                          // n symbols of 511-byte names, in 1,000 modules of 55-byte names
	KsBPF                                // n symbols, vmlinux's and [bpf] programs' in turn, at descending addresses
	numKallsymsVariants
)

// KallsymsVariants lists every kallsyms variant.
func KallsymsVariants() []KallsymsVariant { return upTo(numKallsymsVariants) }

// String names the kallsyms variant in lower case with dashes.
func (k KallsymsVariant) String() string {
	return [...]string{"interleaved", "same-addr", "long-names", "bpf"}[k]
}

// BuildKallsyms returns the kallsyms variant k of n symbols.
func BuildKallsyms(k KallsymsVariant, n int) []byte {
	var out []byte
	long := strings.Repeat("n", 511)
	for i := range n {
		name := fmt.Sprintf("sym%d_", i)
		switch k {
		case KsInterleaved:
			out = fmt.Appendf(out, "%016x t %s\t[mod%d]\n", 0xffffffffc0000000+uint64(i)*16, name, i%1000)
		case KsSameAddr:
			mod := ""
			if i >= n/2 {
				mod = fmt.Sprintf("\t[m%d]", i%100)
			}
			out = fmt.Appendf(out, "%016x T %s%s\n", uint64(0xffffffffc0000010), name, mod)
		case KsLongNames:
			mod := fmt.Sprintf("m%d_", i/max(1, n/1000))
			mod += long[:55-len(mod)]
			out = fmt.Appendf(out, "%016x t %s\t[%s]\n", 0xffffffffc0000000+uint64(i)*16, name+long[len(name):], mod)
		case KsBPF:
			addr := 0xffffffffc0000000 + uint64(n-i)*16
			if i%2 == 0 {
				out = fmt.Appendf(out, "%016x T %s\n", addr-0x3f000000, name)
			} else {
				out = fmt.Appendf(out, "%016x t bpf_prog_%016x_%s\t[bpf]\n", addr, i, name)
			}
		}
	}
	return out
}
