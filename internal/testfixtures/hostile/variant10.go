package hostile

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Variant10 names a shape of the tenth campaign (issue 37): what the nine
// before did not build. Comparisons that fail deep for many candidates
// of one hash (around the deduplication's 2^16 failure budget), named
// records nested around the printers' depth limits (1,024, 2,048,
// 4,096), linked lists of named structs through pointers, FWDs, ENUM64s
// and their forwards, VARs in a DATASEC of deep types, and a split that
// repeats its base's own types. BuildVariant10 makes them in any size.
type Variant10 int

// The variants. [1] is always "int".
const (
	NearMisses Variant10 = iota // n structs "s" { int a; m } whose m is a chain of 64 anonymous unions and structs ending in a typedef "l<i>" of int: one hash, every comparison failing 64 levels down
	NamedDeep                   // n named structs "l0", "l1", ..., each of an int and the one before (valid BTF n deep), in a struct "outer"
	ListChain                   // n named structs "n<i>" { struct n<i-1> *prev; enum64 e; struct f<i> *fwd; }, then the same n again with every prev a FWD: a kernel's linked lists, twice
	FwdStorm                    // n names "f<i>": a FWD struct, a FWD union, two structs of different members and a struct "u<i>" of a pointer to each FWD: forwards that may and may not resolve
	EnumFwds                    // n ENUM64s "e<i>" of two values, each also as a forward (an ENUM64 of no values), and an ENUM forward of 4 bytes of the same name, each under a struct member
	DeepVars                    // n VARs "v<i>" (n <= 65,535) in a DATASEC ".data", each of a typedef of its own 32 anonymous records around an int
	numVariant10s
)

// Variant10s lists every variant.
func Variant10s() []Variant10 { return upTo(numVariant10s) }

// String names the variant in lower case with dashes, as in "near-misses".
func (v Variant10) String() string {
	return [...]string{"near-misses", "named-deep", "list-chain", "fwd-storm", "enum-fwds", "deep-vars"}[v]
}

// BuildVariant10 returns the variant v with n as its size parameter.
func BuildVariant10(v Variant10, n int) ([]byte, error) {
	if v < 0 || v >= numVariant10s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	add := variant10Adders[v]
	return marshal(fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID) error {
		return add(b, intID, n)
	})
}

// BuildVariant10On is BuildVariant10 as split BTF on base, as
// BuildVariantOn does for the ninth campaign's variants.
func BuildVariant10On(base []byte, v Variant10, n int) ([]byte, error) {
	if v < 0 || v >= numVariant10s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return splitOn(base, fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID, _ *btf.Spec) error {
		return variant10Adders[v](b, intID, n)
	})
}

// BuildBaseCopies returns split BTF on base that holds copies of base's
// first n types (all of them when n is larger) and what they refer to:
// a module that repeats the kernel's types, each of which a deduplication
// maps back to the base.
func BuildBaseCopies(base []byte, n int) ([]byte, error) {
	return splitOn(base, fmt.Sprintf("%d base copies", n), func(b *builder.Builder, _ btf.TypeID, s *btf.Spec) error {
		other, err := btf.Parse(base, btf.Options{})
		if err != nil {
			return err
		}
		defer other.Close()
		var ts []btf.Type
		for id := btf.TypeID(1); int(id) <= n; id++ {
			t, err := other.TypeByID(id)
			if err != nil {
				break
			}
			ts = append(ts, t)
		}
		_, err = b.CopyTypes(ts)
		return err
	})
}

// splitOn returns what add makes in a split Builder on base, whose int is
// the base's.
func splitOn(base []byte, what string, add func(b *builder.Builder, intID btf.TypeID, s *btf.Spec) error) ([]byte, error) {
	s, err := btf.Parse(base, btf.Options{})
	if err != nil {
		return nil, fmt.Errorf("hostile: split base: %w", err)
	}
	defer s.Close()
	intT, err := s.FindOne("int", btf.FindOptions{Kind: btf.KindInt})
	if err != nil {
		return nil, fmt.Errorf("hostile: split base: %w", err)
	}
	b, err := builder.NewSplit(s)
	if err != nil {
		return nil, err
	}
	b.AllowManyTypes()
	if err := add(b, intT.ID(), s); err != nil {
		return nil, fmt.Errorf("hostile: %s on a base: %w", what, err)
	}
	return b.Marshal(builder.Options{})
}

var variant10Adders = [...]func(b *builder.Builder, intID btf.TypeID, n int) error{
	nearMisses, namedDeep, listChain, fwdStorm, enumFwds, deepVars}

func nearMisses(b *builder.Builder, intID btf.TypeID, n int) error {
	for i := range n {
		leaf, err := b.AddTypedef(fmt.Sprintf("l%d", i), intID)
		if err != nil {
			return err
		}
		m, err := anonChain(b, leaf, 64)
		if err != nil {
			return err
		}
		if _, err := b.AddStruct("s", 8, []builder.Member{{Name: "a", Type: intID}, {Name: "m", Type: m, BitOffset: 32}}); err != nil {
			return err
		}
	}
	return nil
}

func namedDeep(b *builder.Builder, intID btf.TypeID, n int) error {
	inner, size := intID, uint32(4)
	for i := range n {
		var err error
		if inner, err = b.AddStruct(fmt.Sprintf("l%d", i), size+4, []builder.Member{
			{Name: "x", Type: intID}, {Name: "in", Type: inner, BitOffset: 32},
		}); err != nil {
			return err
		}
		size += 4
	}
	_, err := b.AddStruct("outer", size, []builder.Member{{Name: "m", Type: inner}})
	return err
}

func listChain(b *builder.Builder, intID btf.TypeID, n int) error {
	e, err := b.AddEnum64("kind", 8, false, []builder.Enumerator{{Name: "K_A", Value: 1}, {Name: "K_B", Value: 1 << 40}})
	if err != nil {
		return err
	}
	for pass := range 2 {
		prev := btf.TypeID(0)
		for i := range n {
			fwd, err := b.AddForward(fmt.Sprintf("f%d", i), false)
			if err != nil {
				return err
			}
			fp, err := b.AddPointer(fwd)
			if err != nil {
				return err
			}
			target := prev
			if pass == 1 && i > 0 {
				if target, err = b.AddForward(fmt.Sprintf("n%d", i-1), false); err != nil {
					return err
				}
			}
			pp, err := b.AddPointer(target)
			if err != nil {
				return err
			}
			if prev, err = b.AddStruct(fmt.Sprintf("n%d", i), 24, []builder.Member{
				{Name: "prev", Type: pp}, {Name: "e", Type: e, BitOffset: 64}, {Name: "fwd", Type: fp, BitOffset: 128},
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func fwdStorm(b *builder.Builder, intID btf.TypeID, n int) error {
	long, err := b.AddInt("long", 8, btf.IntInfo{Encoding: btf.IntSigned, Bits: 64})
	if err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("f%d", i)
		fs, err := b.AddForward(name, false)
		if err != nil {
			return err
		}
		fu, err := b.AddForward(name, true)
		if err != nil {
			return err
		}
		if _, err := b.AddStruct(name, 4, []builder.Member{{Name: "a", Type: intID}}); err != nil {
			return err
		}
		if i%2 == 0 {
			// A second, different struct of the name: the FWD is ambiguous.
			if _, err := b.AddStruct(name, 8, []builder.Member{{Name: "a", Type: long}}); err != nil {
				return err
			}
		}
		ps, err := b.AddPointer(fs)
		if err != nil {
			return err
		}
		pu, err := b.AddPointer(fu)
		if err != nil {
			return err
		}
		if _, err := b.AddStruct(fmt.Sprintf("u%d", i), 16, []builder.Member{{Name: "s", Type: ps}, {Name: "u", Type: pu, BitOffset: 64}}); err != nil {
			return err
		}
	}
	return nil
}

func enumFwds(b *builder.Builder, _ btf.TypeID, n int) error {
	ms := make([]builder.Member, 0, 3*n)
	for i := range n {
		name := fmt.Sprintf("e%d", i)
		full, err := b.AddEnum64(name, 8, i%2 == 0, []builder.Enumerator{{Name: fmt.Sprintf("E%d_A", i), Value: 0}, {Name: fmt.Sprintf("E%d_B", i), Value: 1 << 62}})
		if err != nil {
			return err
		}
		fwd64, err := b.AddEnum64(name, 8, false, nil)
		if err != nil {
			return err
		}
		fwd32, err := b.AddEnum(name, 4, false, nil)
		if err != nil {
			return err
		}
		for _, t := range []btf.TypeID{full, fwd64, fwd32} {
			ms = append(ms, builder.Member{Name: fmt.Sprintf("m%d", len(ms)), Type: t, BitOffset: uint32(64 * len(ms))})
		}
	}
	for len(ms) > 0 {
		k := min(len(ms), 65535)
		part := ms[:k]
		ms = ms[k:]
		for j := range part {
			part[j].BitOffset = uint32(64 * j)
		}
		if _, err := b.AddStruct("outer", uint32(8*k), part); err != nil {
			return err
		}
	}
	return nil
}

func deepVars(b *builder.Builder, intID btf.TypeID, n int) error {
	vs := make([]btf.VarSecinfo, n)
	for i := range n {
		t, err := anonChain(b, intID, 32)
		if err != nil {
			return err
		}
		td, err := b.AddTypedef(fmt.Sprintf("t%d", i), t)
		if err != nil {
			return err
		}
		v, err := b.AddVar(fmt.Sprintf("v%d", i), td, btf.LinkageGlobal)
		if err != nil {
			return err
		}
		vs[i] = btf.VarSecinfo{Type: v, Offset: uint32(4 * i), Size: 4}
	}
	_, err := b.AddDatasec(".data", uint32(4*n), vs)
	return err
}
