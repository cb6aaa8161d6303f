package hostile

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Shape names a shape that Build makes in any size, for tests and the CLI
// fuzz campaign.
type Shape int

// The shapes. [1] is always "int".
const (
	SelfEmbed     Shape = iota // [2] anonymous struct { int m0; [2] m1; }, [3] struct outer { [2] m; }
	SelfEmbedTwo               // [2] anonymous struct { [2] m0; [2] m1; }, [3] struct outer { [2] m; }
	NestedRecords              // N anonymous structs and unions, each the only member of the next, in a named struct: Nested(N, NestedPlain)
	PointerChain               // N pointers, each to the one before, under a typedef
	TypedefChain               // N typedefs, each of the one before
	ModifierChain              // N const, volatile and restrict, each of the one before
	ArrayChain                 // N arrays, each of the one before, in a named struct
	Wide                       // a struct of N members (N <= 65,535), each of its own anonymous struct
	Enums                      // N copies of an enum with 65,535 values
	Pointers                   // N pointers to int: the smallest records, 12 bytes a type
	Typedefs                   // N typedefs of int, named "t0", "t1", ...: a line of C each
	TinyStructs                // N structs "s0", "s1", ... of one int member "x"
	EmptyStructs               // N structs "s0", "s1", ... of no members: the smallest records that print as a definition
	numShapes
)

// The shapes of structs whose members' types btf layout loads, listed by
// LayoutShapes as well as by All.
const (
	WideUnions    Shape = numShapes + iota // a struct "wide" of N members (N <= 65,535), each of its own anonymous union of two members
	WideNested                             // a struct "wide" of N members (N <= 65,535), each of its own anonymous struct holding an anonymous union
	ManyWide                               // N structs "w0", "w1", ... of 1,000 int members each, all held by a struct "outer"
	DistinctNamed                          // a struct "outer" of N members (N <= 65,535), each of its own named struct "s0", "s1", ... of one int
	numAllShapes
)

// All lists every shape.
func All() []Shape { return upTo(numAllShapes) }

// upTo returns the values of T from 0 to n-1, in order.
func upTo[T ~int](n T) []T {
	vs := make([]T, n)
	for i := range vs {
		vs[i] = T(i)
	}
	return vs
}

// LayoutShapes lists the shapes of wide and nested records first built
// for btf layout, which its own tests and btf min's run at larger sizes.
func LayoutShapes() []Shape {
	var ks []Shape
	for k := numShapes; k < numAllShapes; k++ {
		ks = append(ks, k)
	}
	return ks
}

// String names the shape in lower case with dashes, as in "self-embed".
func (k Shape) String() string {
	return [...]string{"self-embed", "self-embed-two", "nested", "pointer-chain", "typedef-chain",
		"modifier-chain", "array-chain", "wide", "enums", "pointers", "typedefs", "tiny-structs", "empty-structs",
		"wide-unions", "wide-nested", "many-wide", "distinct-named"}[k]
}

// Build returns the shape k with n as its size parameter (the depth of a
// nesting or chain, the members of a wide record, the copies of the
// enum, the types of the many-small-types shapes); the self-embedding
// shapes ignore n.
func Build(k Shape, n int) ([]byte, error) {
	return marshal(fmt.Sprintf("%v of %d", k, n), func(b *builder.Builder, intID btf.TypeID) error {
		return build(b, k, intID, n)
	})
}

// marshal returns the BTF that add makes in a new Builder after an "int",
// or add's error labelled with what.
func marshal(what string, add func(b *builder.Builder, intID btf.TypeID) error) ([]byte, error) {
	b := builder.New()
	b.AllowManyTypes()
	intID, err := addInt(b)
	if err != nil {
		return nil, err
	}
	if err := add(b, intID); err != nil {
		return nil, fmt.Errorf("hostile: %s: %w", what, err)
	}
	return b.Marshal(builder.Options{})
}

func build(b *builder.Builder, k Shape, intID btf.TypeID, n int) error {
	switch k {
	case SelfEmbed:
		return selfStruct(b, "", intID, 2)
	case SelfEmbedTwo:
		return selfStruct(b, "", 0, 2)
	case NestedRecords:
		return records(b, intID, n, chainOpts{})
	case PointerChain, TypedefChain, ModifierChain, ArrayChain:
		return chain(b, k, intID, n)
	case Wide, WideUnions, WideNested:
		return wide(b, k, intID, n)
	case ManyWide, DistinctNamed:
		return holders(b, k, intID, n)
	case Enums:
		return enums(b, n)
	case Pointers, Typedefs, TinyStructs, EmptyStructs:
		return many(b, k, intID, n)
	}
	return fmt.Errorf("unknown shape %d", k)
}

// chain adds n types of one reference kind, each referring to the one
// before (the first to int), and names the last: a typedef "chain" of it,
// or for arrays a struct "outer" holding it.
func chain(b *builder.Builder, k Shape, intID btf.TypeID, n int) error {
	prev := intID
	for i := range n {
		var err error
		switch k {
		case PointerChain:
			prev, err = b.AddPointer(prev)
		case TypedefChain:
			prev, err = b.AddTypedef(fmt.Sprintf("t%d", i), prev)
		case ModifierChain:
			prev, err = [...]func(btf.TypeID) (btf.TypeID, error){b.AddConst, b.AddVolatile, b.AddRestrict}[i%3](prev)
		case ArrayChain:
			prev, err = b.AddArray(btf.ArrayInfo{Type: prev, Index: intID, Nelems: 1})
		}
		if err != nil {
			return err
		}
	}
	if k == ArrayChain {
		_, err := b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: prev}})
		return err
	}
	_, err := b.AddTypedef("chain", prev)
	return err
}

// wide adds a struct "wide" of n members, each of its own anonymous
// record of 4 bytes: for Wide a struct of one int, for WideUnions a union
// of two ints, for WideNested a struct holding such a union.
func wide(b *builder.Builder, k Shape, intID btf.TypeID, n int) error {
	ms := make([]builder.Member, n)
	for i := range ms {
		id, err := wideMember(b, k, intID)
		if err != nil {
			return err
		}
		ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: id, BitOffset: uint32(i) * 32}
	}
	_, err := b.AddStruct("wide", uint32(n)*4, ms)
	return err
}

// wideMember adds the anonymous type of one member of wide's struct.
func wideMember(b *builder.Builder, k Shape, intID btf.TypeID) (btf.TypeID, error) {
	if k == Wide {
		return b.AddStruct("", 4, []builder.Member{{Name: "x", Type: intID}})
	}
	u, err := b.AddUnion("", 4, []builder.Member{{Name: "x", Type: intID}, {Name: "y", Type: intID}})
	if err != nil || k == WideUnions {
		return u, err
	}
	return b.AddStruct("", 4, []builder.Member{{Name: "u", Type: u}})
}

// holders adds n named structs and a struct "outer" holding each of them
// once: for ManyWide structs "w0", "w1", ... of 1,000 int members, for
// DistinctNamed structs "s0", "s1", ... of one int (n <= 65,535).
func holders(b *builder.Builder, k Shape, intID btf.TypeID, n int) error {
	width := 1
	if k == ManyWide {
		width = 1000
	}
	inner := make([]builder.Member, width)
	for i := range inner {
		inner[i] = builder.Member{Name: fmt.Sprintf("x%d", i), Type: intID, BitOffset: uint32(i) * 32}
	}
	prefix := [...]string{ManyWide: "w", DistinctNamed: "s"}[k]
	ms := make([]builder.Member, n)
	for i := range ms {
		id, err := b.AddStruct(fmt.Sprintf("%s%d", prefix, i), uint32(width)*4, inner)
		if err != nil {
			return err
		}
		ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: id, BitOffset: uint32(i*width) * 32}
	}
	_, err := b.AddStruct("outer", uint32(n*width)*4, ms)
	return err
}

// enums adds n enums "e0", "e1", ... of 65,535 values each, the values'
// names shared between them.
func enums(b *builder.Builder, n int) error {
	vs := make([]builder.Enumerator, 65535)
	for i := range vs {
		vs[i] = builder.Enumerator{Name: fmt.Sprintf("V%d", i), Value: uint64(i)}
	}
	for i := range n {
		if _, err := b.AddEnum(fmt.Sprintf("e%d", i), 4, false, vs); err != nil {
			return err
		}
	}
	return nil
}

// many adds n small types of one shape, each on its own (of int): the
// inputs with the most types for their size, against which every reading
// command's per-type state is measured.
func many(b *builder.Builder, k Shape, intID btf.TypeID, n int) error {
	x := []builder.Member{{Name: "x", Type: intID}}
	for i := range n {
		var err error
		switch k {
		case Pointers:
			_, err = b.AddPointer(intID)
		case Typedefs:
			_, err = b.AddTypedef(fmt.Sprintf("t%d", i), intID)
		case TinyStructs:
			_, err = b.AddStruct(fmt.Sprintf("s%d", i), 4, x)
		case EmptyStructs:
			_, err = b.AddStruct(fmt.Sprintf("s%d", i), 0, nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
