package hostile

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Mix names a shape of the second campaign against issue 37's rules,
// built the same ways as the Shapes but mixed: chains through every
// reference kind at once, the widest records of each kind, and strings
// that dominate the input. BuildMix makes them in any size.
type Mix int

// The mixtures. [1] is always "int".
const (
	MixedChain   Mix = iota // N types cycling through PTR, CONST, VOLATILE, RESTRICT, TYPEDEF, TYPE_TAG, ARRAY and FUNC_PROTO (its one parameter), each of the one before, under a typedef "chain"
	ProtoChain              // N FUNC_PROTOs, each whose one parameter is the one before, under a FUNC "f" and a typedef "chain"
	ArrayNest               // N arrays of arrays, each of 2 of the one before (the sizes overflow), in a struct "outer"
	WideProtos              // N FUNC_PROTOs of 65,535 parameters of int, each under its FUNC
	Datasecs                // N VARs of int in DATASECs of at most 65,535 each
	TagChain                // N TYPE_TAGs each on the one before, a struct "outer" of a member of it, and N DECL_TAGs on "outer"'s member and on itself
	Enum64s                 // N copies of an ENUM64 with 65,535 values
	LongNames               // N structs, each with a distinct name of 64 KB and a member of as long a name
	ManyStrings             // N enumerators of distinct names, in ENUMs of 65,535: a string section of N strings
	NestedChains            // N anonymous records nested as NestedRecords, each also holding an array of arrays of the one before and a pointer to a FUNC_PROTO taking it
	numMixes
)

// Mixes lists every mixture.
func Mixes() []Mix { return upTo(numMixes) }

// String names the mixture in lower case with dashes, as in "mixed-chain".
func (m Mix) String() string {
	return [...]string{"mixed-chain", "proto-chain", "array-nest", "wide-protos", "datasecs", "tag-chain",
		"enum64s", "long-names", "many-strings", "nested-chains"}[m]
}

// BuildMix returns the mixture m with n as its size parameter: the depth
// of a chain or nesting, the copies of a wide record, the variables,
// names or strings.
func BuildMix(m Mix, n int) ([]byte, error) {
	return marshal(fmt.Sprintf("%v of %d", m, n), func(b *builder.Builder, intID btf.TypeID) error {
		return buildMix(b, m, intID, n)
	})
}

func buildMix(b *builder.Builder, m Mix, intID btf.TypeID, n int) error {
	if m < 0 || m >= numMixes {
		return fmt.Errorf("unknown mixture %d", m)
	}
	add := [...]func(*builder.Builder, btf.TypeID, int) error{mixedChain, protoChain, arrayNest, wideProtos, datasecs,
		tagChain, enum64s, longNames, manyStrings, nestedChains}[m]
	return add(b, intID, n)
}

// mixedChain adds n types, each of a reference kind in turn and each
// referring to the one before, and a typedef "chain" of the last.
func mixedChain(b *builder.Builder, intID btf.TypeID, n int) error {
	last, err := linked(intID, n, func(i int, prev btf.TypeID) (btf.TypeID, error) {
		switch i % 8 {
		case 0:
			return b.AddPointer(prev)
		case 1:
			return b.AddConst(prev)
		case 2:
			return b.AddVolatile(prev)
		case 3:
			return b.AddRestrict(prev)
		case 4:
			return b.AddTypedef(fmt.Sprintf("t%d", i), prev)
		case 5:
			return b.AddTypeTag("user", prev, false)
		case 6:
			return b.AddArray(btf.ArrayInfo{Type: prev, Index: intID, Nelems: 3})
		}
		return b.AddFuncProto(prev, []builder.Param{{Name: "p", Type: prev}})
	})
	if err != nil {
		return err
	}
	_, err = b.AddTypedef("chain", last)
	return err
}

// linked adds n types, each made by add of the one before (the first of
// first), and returns the last.
func linked(first btf.TypeID, n int, add func(i int, prev btf.TypeID) (btf.TypeID, error)) (btf.TypeID, error) {
	prev := first
	for i := range n {
		var err error
		if prev, err = add(i, prev); err != nil {
			return 0, err
		}
	}
	return prev, nil
}

// protoChain adds n FUNC_PROTOs, each returning int and taking the one
// before as its one parameter (by value, as no C allows), a FUNC "f" of
// the last and a typedef "chain" of it.
func protoChain(b *builder.Builder, intID btf.TypeID, n int) error {
	last, err := linked(intID, n, func(_ int, prev btf.TypeID) (btf.TypeID, error) {
		return b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: prev}})
	})
	if err != nil {
		return err
	}
	if _, err := b.AddFunc("f", last, btf.LinkageGlobal); err != nil {
		return err
	}
	_, err = b.AddTypedef("chain", last)
	return err
}

// arrayNest adds n arrays, each of 2 of the one before, so that the size
// doubles at each level and overflows, and a struct "outer" holding the
// last.
func arrayNest(b *builder.Builder, intID btf.TypeID, n int) error {
	last, err := linked(intID, n, func(_ int, prev btf.TypeID) (btf.TypeID, error) {
		return b.AddArray(btf.ArrayInfo{Type: prev, Index: intID, Nelems: 2})
	})
	if err != nil {
		return err
	}
	_, err = b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: last}})
	return err
}

// wideProtos adds n FUNC_PROTOs of builder.MaxElems parameters of int,
// each under a FUNC "f0", "f1", ...
func wideProtos(b *builder.Builder, intID btf.TypeID, n int) error {
	ps := make([]builder.Param, builder.MaxElems)
	for i := range ps {
		ps[i] = builder.Param{Name: fmt.Sprintf("p%d", i), Type: intID}
	}
	for i := range n {
		proto, err := b.AddFuncProto(intID, ps)
		if err != nil {
			return err
		}
		if _, err := b.AddFunc(fmt.Sprintf("f%d", i), proto, btf.LinkageGlobal); err != nil {
			return err
		}
	}
	return nil
}

// datasecs adds n VARs "v0", "v1", ... of int and DATASECs ".data0",
// ".data1", ... of at most builder.MaxElems of them each, 4 bytes apart.
func datasecs(b *builder.Builder, intID btf.TypeID, n int) error {
	first := b.NextID()
	for i := range n {
		if _, err := b.AddVar(fmt.Sprintf("v%d", i), intID, btf.LinkageGlobal); err != nil {
			return err
		}
	}
	for sec := 0; sec*builder.MaxElems < n; sec++ {
		vs := make([]btf.VarSecinfo, min(builder.MaxElems, n-sec*builder.MaxElems))
		for i := range vs {
			vs[i] = btf.VarSecinfo{Type: first + btf.TypeID(sec*builder.MaxElems+i), Offset: uint32(4 * i), Size: 4}
		}
		if _, err := b.AddDatasec(fmt.Sprintf(".data%d", sec), uint32(4*len(vs)), vs); err != nil {
			return err
		}
	}
	return nil
}

// tagChain adds n TYPE_TAGs, each on the one before (the first on int), a
// struct "outer" whose member "m" is the last, and n DECL_TAGs on "outer",
// alternately on itself and on its member.
func tagChain(b *builder.Builder, intID btf.TypeID, n int) error {
	prev := intID
	for i := range n {
		var err error
		if prev, err = b.AddTypeTag(fmt.Sprintf("tag%d", i%16), prev, i%2 == 1); err != nil {
			return err
		}
	}
	outer, err := b.AddStruct("outer", 4, []builder.Member{{Name: "m", Type: prev}})
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := b.AddDeclTag(fmt.Sprintf("d%d", i), outer, int32(i%2)-1, false); err != nil {
			return err
		}
	}
	return nil
}

// enum64s adds n ENUM64s "e0", "e1", ... of builder.MaxElems values each,
// the values' names shared between them and their values past 32 bits.
func enum64s(b *builder.Builder, _ btf.TypeID, n int) error {
	vs := make([]builder.Enumerator, builder.MaxElems)
	for i := range vs {
		vs[i] = builder.Enumerator{Name: fmt.Sprintf("V%d", i), Value: uint64(i) << 33}
	}
	for i := range n {
		if _, err := b.AddEnum64(fmt.Sprintf("e%d", i), 8, i%2 == 1, vs); err != nil {
			return err
		}
	}
	return nil
}

// longNameLen is the length of LongNames' names: 64 KB.
const longNameLen = 64 << 10

// longNames adds n structs of one int member, each struct and member
// named by a distinct string of 64 KB.
func longNames(b *builder.Builder, intID btf.TypeID, n int) error {
	pad := strings.Repeat("x", longNameLen)
	for i := range n {
		name := fmt.Sprintf("s%d_", i)
		name += pad[len(name):]
		member := "m" + name[1:]
		if _, err := b.AddStruct(name, 4, []builder.Member{{Name: member, Type: intID}}); err != nil {
			return err
		}
	}
	return nil
}

// manyStrings adds n enumerators of distinct names in ENUMs "e0", "e1",
// ... of at most builder.MaxElems each.
func manyStrings(b *builder.Builder, _ btf.TypeID, n int) error {
	for e := 0; e*builder.MaxElems < n; e++ {
		vs := make([]builder.Enumerator, min(builder.MaxElems, n-e*builder.MaxElems))
		for i := range vs {
			vs[i] = builder.Enumerator{Name: fmt.Sprintf("E%d_%d", e, i), Value: uint64(i)}
		}
		if _, err := b.AddEnum(fmt.Sprintf("e%d", e), 4, false, vs); err != nil {
			return err
		}
	}
	return nil
}

// nestedChains adds n anonymous records, structs and unions in turn,
// each holding the one before, an array of 2 arrays of 2 of it and a
// pointer to a FUNC_PROTO taking it; a struct "outer" holds the last.
func nestedChains(b *builder.Builder, intID btf.TypeID, n int) error {
	prev, size := intID, uint32(4)
	for i := range n {
		inner, err := b.AddArray(btf.ArrayInfo{Type: prev, Index: intID, Nelems: 2})
		if err != nil {
			return err
		}
		arr, err := b.AddArray(btf.ArrayInfo{Type: inner, Index: intID, Nelems: 2})
		if err != nil {
			return err
		}
		proto, err := b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: prev}})
		if err != nil {
			return err
		}
		ptr, err := b.AddPointer(proto)
		if err != nil {
			return err
		}
		ms := []builder.Member{{Name: "a", Type: prev}, {Name: "b", Type: arr}, {Name: "f", Type: ptr}}
		if i%2 == 1 {
			prev, err = b.AddUnion("", max(4*size, 8), ms)
			size = max(4*size, 8)
		} else {
			ms[1].BitOffset, ms[2].BitOffset = size*8, size*8*5
			size = 5*size + 8
			prev, err = b.AddStruct("", size, ms)
		}
		if err != nil {
			return err
		}
		size = min(size, 1<<30)
	}
	_, err := b.AddStruct("outer", size, []builder.Member{{Name: "m", Type: prev}})
	return err
}
