// Package shapes builds BTF whose type graph has a hostile shape: records
// that embed themselves, deep nesting, long chains, wide records and many
// big enums (issue 37). Each generator returns standalone BTF in host
// byte order, written through btf/builder, so tests can make inputs of
// any size without committing them.
//
// Some of the shapes are valid BTF (nesting, chains, wide records, enums);
// the self-embedding ones are not (a record cannot contain itself), but
// opening a Spec accepts them, as the kernel's own loader checks sizes, not
// containment: every reader must stop on them with an error.
//
// It is a test helper: only _test.go files (and other test helpers)
// import it, as docs/layers.md says and internal/apidoc's TestLayers
// checks.
package shapes

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Kind names a shape, for tests and the CLI fuzz campaign.
type Kind int

// The shapes.
const (
	SelfEmbed     Kind = iota // [2] anonymous struct { int a; [2] b; }, [3] struct outer { [2] m; }
	SelfEmbedTwo              // [2] anonymous struct { [2] a; [2] b; }, [3] struct outer { [2] m; }
	Nested                    // N anonymous structs and unions, each the only member of the next, in a named struct
	PointerChain              // N pointers, each to the one before, under a typedef
	TypedefChain              // N typedefs, each of the one before
	ModifierChain             // N const, volatile and restrict, each of the one before
	ArrayChain                // N arrays, each of the one before, in a named struct
	Wide                      // a struct of N members (N <= 65,535), each of its own anonymous struct
	Enums                     // N copies of an enum with 65,535 values
	numKinds
)

// All lists every shape.
func All() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

func (k Kind) String() string {
	return [...]string{"self-embed", "self-embed-two", "nested", "pointer-chain", "typedef-chain",
		"modifier-chain", "array-chain", "wide", "enums"}[k]
}

// Build returns the shape k with n as its size parameter (the depth of a
// nesting or chain, the members of a wide record, the copies of the
// enum); the self-embedding shapes ignore n.
func Build(k Kind, n int) ([]byte, error) {
	b := builder.New()
	b.AllowManyTypes()
	intID, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		return nil, err
	}
	if err := build(b, k, intID, n); err != nil {
		return nil, fmt.Errorf("shapes: %v of %d: %w", k, n, err)
	}
	return b.Marshal(builder.Options{})
}

func build(b *builder.Builder, k Kind, intID btf.TypeID, n int) error {
	switch k {
	case SelfEmbed, SelfEmbedTwo:
		return selfEmbed(b, k, intID)
	case Nested:
		return nested(b, intID, n)
	case PointerChain, TypedefChain, ModifierChain, ArrayChain:
		return chain(b, k, intID, n)
	case Wide:
		return wide(b, intID, n)
	case Enums:
		return enums(b, n)
	}
	return fmt.Errorf("unknown shape %d", k)
}

func selfEmbed(b *builder.Builder, k Kind, intID btf.TypeID) error {
	self := b.NextID()
	first := builder.Member{Name: "a", Type: intID}
	if k == SelfEmbedTwo {
		first.Type = self
	}
	if _, err := b.AddStruct("", 8, []builder.Member{first, {Name: "b", Type: self, BitOffset: 32}}); err != nil {
		return err
	}
	_, err := b.AddStruct("outer", 8, []builder.Member{{Name: "m", Type: self}})
	return err
}

// nested adds n anonymous records, structs and unions in turn, the first
// holding an int and each next one holding the one before; a named struct
// "outer" holds the last.
func nested(b *builder.Builder, intID btf.TypeID, n int) error {
	inner := intID
	for i := range n {
		m := []builder.Member{{Name: "m", Type: inner}}
		var err error
		if i%2 == 0 {
			inner, err = b.AddStruct("", 4, m)
		} else {
			inner, err = b.AddUnion("", 4, m)
		}
		if err != nil {
			return err
		}
	}
	_, err := b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: inner}})
	return err
}

// chain adds n types of one reference kind, each referring to the one
// before (the first to int), and names the last: a typedef "chain" of it,
// or for arrays a struct "outer" holding it.
func chain(b *builder.Builder, k Kind, intID btf.TypeID, n int) error {
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
// struct of one int.
func wide(b *builder.Builder, intID btf.TypeID, n int) error {
	ms := make([]builder.Member, n)
	for i := range ms {
		id, err := b.AddStruct("", 4, []builder.Member{{Name: "x", Type: intID}})
		if err != nil {
			return err
		}
		ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: id, BitOffset: uint32(i) * 32}
	}
	_, err := b.AddStruct("wide", uint32(n)*4, ms)
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
