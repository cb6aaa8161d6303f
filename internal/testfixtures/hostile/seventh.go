package hostile

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Twist names a shape of the seventh campaign against issue 37's rules:
// the families of the earlier ones (self-embedding, nesting, chains, wide
// records) reached through other routes and mixed. BuildTwist makes them
// in any size.
type Twist int

// The twists. [1] is always "int".
const (
	SelfArray      Twist = iota // an anonymous struct { int a; b[N] } whose member b is an array of N of itself, in a struct "outer"
	SelfWrapped                 // a struct "s" whose member is N wrappers (typedef, const, volatile, type_tag in turn) around "s" itself
	MutualRing                  // N records (N >= 1) each embedding the next and the last the first: structs and unions, anonymous and named in turn, every third through a typedef, in a struct "outer"
	DeepMixed                   // N levels of struct, union, typedef and array[1] in turn, each of the one before, the structs with a 3-bit bitfield first and every third level named: valid BTF
	ModifierCycle               // N types of PTR, CONST, VOLATILE, RESTRICT, TYPEDEF, TYPE_TAG and FUNC_PROTO (returning and taking the one before) in turn, the first of the last: a cycle through pointers and prototypes
	QualifierCycle              // N types of CONST, VOLATILE, RESTRICT, TYPEDEF and TYPE_TAG in turn, the first of the last: a cycle with no pointer in it
	SelfProtos                  // N FUNC_PROTOs of 65,535 parameters, each parameter and the return a pointer to the prototype itself, each under a FUNC
	SameVarSecs                 // N DATASECs of 65,535 entries each, every entry the one VAR "v" of int at offset 0
	MemberTags                  // a struct "s" of 65,535 int members and N DECL_TAGs all on its last member, named "t0", "t1", ... modulo 64
	DeepAnon                    // N levels of anonymous struct, union and array[1] in turn, each of the one before, the records with a bitfield, in a struct "outer": one C declaration N deep, valid BTF
	SameEnum64s                 // N ENUM64s all named "e" of 65,535 values each, named alike in every enum ("V0", "V1", ...), the last value i: N distinct enums of one name
	numTwists
)

// Twists lists every twist.
func Twists() []Twist { return upTo(numTwists) }

// String names the twist in lower case with dashes, as in "self-array".
func (k Twist) String() string {
	return [...]string{"self-array", "self-wrapped", "mutual-ring", "deep-mixed", "modifier-cycle",
		"qualifier-cycle", "self-protos", "same-var-secs", "member-tags", "deep-anon", "same-enum64s"}[k]
}

// BuildTwist returns the twist k with n as its size parameter: the
// elements, wrappers, records, depth, chain length or copies.
func BuildTwist(k Twist, n int) ([]byte, error) {
	if k < 0 || k >= numTwists {
		return nil, fmt.Errorf("hostile: unknown twist %d", k)
	}
	add := [...]func(*builder.Builder, btf.TypeID, int) error{selfArray, selfWrapped, mutualRing, deepMixed,
		modifierCycle, qualifierCycle, selfProtos, sameVarSecs, memberTags, deepAnon, sameEnum64s}[k]
	return marshal(fmt.Sprintf("%v of %d", k, n), func(b *builder.Builder, intID btf.TypeID) error {
		return add(b, intID, n)
	})
}

// BuildStructRing returns BTF of n structs "s" of size 4 (n >= 1), each
// with one member "m" of the next, the last of the first (a ring that
// libbpf deduplicates to one struct, comparing down the whole ring at
// once) or, bent, of int (a chain whose structs all differ, that libbpf
// compares each with every one before it: cubic in n). They are the BTF
// of BuildDWARFCycle's and BuildDWARFChain's member route.
func BuildStructRing(n int, bent bool) ([]byte, error) {
	return marshal(fmt.Sprintf("struct ring of %d", n), func(b *builder.Builder, intID btf.TypeID) error {
		first := b.NextID()
		for i := range n {
			next := first + btf.TypeID((i+1)%n)
			if bent && i == n-1 {
				next = intID
			}
			if _, err := b.AddStruct("s", 4, []builder.Member{{Name: "m", Type: next}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// BuildPointers returns BTF of n pointers (n >= 1) of one of three
// shapes: each to int (flat), each to the next and the last to int (a
// chain, made canonical by one descent n deep), or each to the next and
// the last to the first (a ring: a reference cycle without a struct,
// which libbpf refuses).
func BuildPointers(n int, shape PointerShape) ([]byte, error) {
	return marshal(fmt.Sprintf("%d pointers", n), func(b *builder.Builder, intID btf.TypeID) error {
		first := b.NextID()
		for i := range n {
			next := intID
			switch {
			case shape == PointersToInt:
			case i < n-1: // PointersToNext, PointersRing
				next = first + btf.TypeID(i) + 1
			case shape == PointersRing:
				next = first
			}
			if _, err := b.AddPointer(next); err != nil {
				return err
			}
		}
		return nil
	})
}

// PointerShape is a shape of BuildPointers.
type PointerShape int

// The shapes of BuildPointers.
const (
	PointersToInt  PointerShape = iota // each to int
	PointersToNext                     // each to the next, the last to int: a chain
	PointersRing                       // each to the next, the last to the first
)

// selfArray adds the struct, the array of n of it after it, and "outer".
func selfArray(b *builder.Builder, intID btf.TypeID, n int) error {
	s := b.NextID()
	if _, err := b.AddStruct("", 8, []builder.Member{{Name: "a", Type: intID}, {Name: "b", Type: s + 1, BitOffset: 32}}); err != nil {
		return err
	}
	if _, err := b.AddArray(btf.ArrayInfo{Type: s, Index: intID, Nelems: uint32(n)}); err != nil {
		return err
	}
	_, err := b.AddStruct("outer", 8, []builder.Member{{Name: "m", Type: s}})
	return err
}

// selfWrapped adds the n wrappers, the first around "s", then "s".
func selfWrapped(b *builder.Builder, _ btf.TypeID, n int) error {
	s := b.NextID() + btf.TypeID(n)
	last, err := linked(s, n, func(i int, prev btf.TypeID) (btf.TypeID, error) {
		switch i % 4 {
		case 0:
			return b.AddTypedef(fmt.Sprintf("w%d", i), prev)
		case 1:
			return b.AddConst(prev)
		case 2:
			return b.AddVolatile(prev)
		}
		return b.AddTypeTag("user", prev, false)
	})
	if err != nil {
		return err
	}
	_, err = b.AddStruct("s", 4, []builder.Member{{Name: "m", Type: last}})
	return err
}

// mutualRing adds n records, record i at id first+2i and its typedef at
// first+2i+1, record i holding record i+1 (or its typedef) by value.
func mutualRing(b *builder.Builder, _ btf.TypeID, n int) error {
	first := b.NextID()
	for i := range n {
		next := first + btf.TypeID(2*((i+1)%n))
		if (i+1)%3 == 0 {
			next++
		}
		name := ""
		if i%2 == 1 {
			name = fmt.Sprintf("r%d", i)
		}
		ms := []builder.Member{{Name: "m", Type: next}}
		var err error
		if i%4 < 2 {
			_, err = b.AddStruct(name, 4, ms)
		} else {
			_, err = b.AddUnion(name, 4, ms)
		}
		if err != nil {
			return err
		}
		if _, err := b.AddTypedef(fmt.Sprintf("rt%d", i), first+btf.TypeID(2*i)); err != nil {
			return err
		}
	}
	_, err := b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: first}})
	return err
}

// deepMixed adds the n levels and a struct "outer" of the last.
func deepMixed(b *builder.Builder, intID btf.TypeID, n int) error {
	size := uint32(4)
	last, err := linked(intID, n, func(i int, prev btf.TypeID) (btf.TypeID, error) {
		name := ""
		if i%3 == 0 {
			name = fmt.Sprintf("d%d", i)
		}
		switch i % 4 {
		case 0:
			size += 4
			return b.AddStruct(name, size, []builder.Member{
				{Name: "bf", Type: intID, BitfieldSize: 3}, {Name: "m", Type: prev, BitOffset: 32}})
		case 1:
			return b.AddUnion(name, size, []builder.Member{{Name: "m", Type: prev}, {Name: "x", Type: intID, BitfieldSize: 5}})
		case 2:
			return b.AddTypedef(fmt.Sprintf("t%d", i), prev)
		}
		return b.AddArray(btf.ArrayInfo{Type: prev, Index: intID, Nelems: 1})
	})
	if err != nil {
		return err
	}
	_, err = b.AddStruct("outer", size, []builder.Member{{Name: "m", Type: last}})
	return err
}

// modifierCycle adds the n types, the first of the last, and a typedef
// "chain" of the last.
func modifierCycle(b *builder.Builder, intID btf.TypeID, n int) error {
	last, err := linked(b.NextID()+btf.TypeID(n-1), n, func(i int, prev btf.TypeID) (btf.TypeID, error) {
		switch i % 7 {
		case 0:
			return b.AddPointer(prev)
		case 1:
			return b.AddConst(prev)
		case 2:
			return b.AddVolatile(prev)
		case 3:
			return b.AddRestrict(prev)
		case 4:
			return b.AddTypedef(fmt.Sprintf("c%d", i), prev)
		case 5:
			return b.AddTypeTag("user", prev, false)
		}
		return b.AddFuncProto(prev, []builder.Param{{Name: "p", Type: prev}, {Name: "i", Type: intID}})
	})
	if err != nil {
		return err
	}
	_, err = b.AddTypedef("chain", last)
	return err
}

// qualifierCycle adds the n types, the first of the last, and a struct
// "outer" of a pointer to the last.
func qualifierCycle(b *builder.Builder, _ btf.TypeID, n int) error {
	last, err := linked(b.NextID()+btf.TypeID(n-1), n, func(i int, prev btf.TypeID) (btf.TypeID, error) {
		switch i % 5 {
		case 0:
			return b.AddConst(prev)
		case 1:
			return b.AddVolatile(prev)
		case 2:
			return b.AddRestrict(prev)
		case 3:
			return b.AddTypedef(fmt.Sprintf("q%d", i), prev)
		}
		return b.AddTypeTag("user", prev, false)
	})
	if err != nil {
		return err
	}
	p, err := b.AddPointer(last)
	if err != nil {
		return err
	}
	_, err = b.AddStruct("outer", 8, []builder.Member{{Name: "p", Type: p}})
	return err
}

// selfProtos adds n prototypes, each followed by the pointer to it and its
// FUNC "f0", "f1", ...
func selfProtos(b *builder.Builder, _ btf.TypeID, n int) error {
	ps := make([]builder.Param, builder.MaxElems)
	for i := range ps {
		ps[i].Name = fmt.Sprintf("p%d", i)
	}
	for i := range n {
		proto := b.NextID()
		for j := range ps {
			ps[j].Type = proto + 1
		}
		if _, err := b.AddFuncProto(proto+1, ps); err != nil {
			return err
		}
		if _, err := b.AddPointer(proto); err != nil {
			return err
		}
		if _, err := b.AddFunc(fmt.Sprintf("f%d", i), proto, btf.LinkageGlobal); err != nil {
			return err
		}
	}
	return nil
}

// sameVarSecs adds the VAR and n DATASECs ".s0", ".s1", ... of it.
func sameVarSecs(b *builder.Builder, intID btf.TypeID, n int) error {
	v, err := b.AddVar("v", intID, btf.LinkageGlobal)
	if err != nil {
		return err
	}
	vs := make([]btf.VarSecinfo, builder.MaxElems)
	for i := range vs {
		vs[i] = btf.VarSecinfo{Type: v, Size: 4}
	}
	for i := range n {
		if _, err := b.AddDatasec(fmt.Sprintf(".s%d", i), 4, vs); err != nil {
			return err
		}
	}
	return nil
}

// memberTags adds "s" and the n DECL_TAGs.
func memberTags(b *builder.Builder, intID btf.TypeID, n int) error {
	ms := make([]builder.Member, builder.MaxElems)
	for i := range ms {
		ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: intID, BitOffset: uint32(32 * i)}
	}
	s, err := b.AddStruct("s", 4*builder.MaxElems, ms)
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := b.AddDeclTag(fmt.Sprintf("t%d", i%64), s, builder.MaxElems-1, i%2 == 1); err != nil {
			return err
		}
	}
	return nil
}

// sameEnum64s adds the n ENUM64s.
func sameEnum64s(b *builder.Builder, _ btf.TypeID, n int) error {
	vs := make([]builder.Enumerator, builder.MaxElems)
	for i := range vs {
		vs[i] = builder.Enumerator{Name: fmt.Sprintf("V%d", i), Value: 1 << 63}
	}
	for i := range n {
		vs[len(vs)-1].Value = uint64(i)
		if _, err := b.AddEnum64("e", 8, true, vs); err != nil {
			return err
		}
	}
	return nil
}

// deepAnon adds the n levels and "outer".
func deepAnon(b *builder.Builder, intID btf.TypeID, n int) error {
	size := uint32(4)
	last, err := linked(intID, n, func(i int, prev btf.TypeID) (btf.TypeID, error) {
		switch i % 3 {
		case 0:
			size += 4
			return b.AddStruct("", size, []builder.Member{
				{Name: "bf", Type: intID, BitfieldSize: 7}, {Name: "m", Type: prev, BitOffset: 32}})
		case 1:
			return b.AddUnion("", size, []builder.Member{{Name: "x", Type: intID, BitfieldSize: 2}, {Name: "m", Type: prev}})
		}
		return b.AddArray(btf.ArrayInfo{Type: prev, Index: intID, Nelems: 1})
	})
	if err != nil {
		return err
	}
	_, err = b.AddStruct("outer", size, []builder.Member{{Name: "m", Type: last}})
	return err
}
