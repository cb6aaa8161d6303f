package hostile

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Pair names a pair of BTFs for diff in which every named type of one
// kind changed: the most changes, each with its details, for the size of
// the inputs. In both BTFs [1] is "int" and [2] "long".
type Pair int

// The pairs.
const (
	TypedefPair Pair = iota // N typedefs "t0", "t1", ... of int, against the same of long
	StructPair              // N structs "s0", ... { int a; int b; }, against { int a; long b; }
	EnumPair                // N enums "e0", ... { A = 0, B = 1 }, against B = 2 (the names shared, as a string section holds 16 MB at most)
	FuncPair                // N functions "f0", ... of one prototype int (int a), against int (long a)
	PointerPair             // N typedefs "p0", ... each of its own pointer to int, against to long
	numPairs
)

// Pairs lists every Pair.
func Pairs() []Pair { return upTo(numPairs) }

// String names the pair in lower case with dashes, as in "typedef-pair".
func (p Pair) String() string {
	return [...]string{"typedef-pair", "struct-pair", "enum-pair", "func-pair", "pointer-pair"}[p]
}

// BuildPair returns the two BTFs of the pair p with n types of its kind
// each: old, then new.
func BuildPair(p Pair, n int) (old, new []byte, err error) {
	if old, err = buildPairSide(p, n, false); err != nil {
		return nil, nil, err
	}
	if new, err = buildPairSide(p, n, true); err != nil {
		return nil, nil, err
	}
	return old, new, nil
}

// buildPairSide builds the old side of p, or with changed the new one.
func buildPairSide(p Pair, n int, changed bool) ([]byte, error) {
	b := builder.New()
	b.AllowManyTypes()
	intID, err := addInt(b)
	if err != nil {
		return nil, err
	}
	longID, err := b.AddInt("long", 8, btf.IntInfo{Encoding: btf.IntSigned, Bits: 64})
	if err != nil {
		return nil, err
	}
	t := intID
	if changed {
		t = longID
	}
	if err := pairTypes(b, p, n, intID, t, changed); err != nil {
		return nil, fmt.Errorf("hostile: %v of %d: %w", p, n, err)
	}
	return b.Marshal(builder.Options{})
}

// pairTypes adds the n types of p, using t (int or long) where the two
// sides differ.
func pairTypes(b *builder.Builder, p Pair, n int, intID, t btf.TypeID, changed bool) error {
	var proto btf.TypeID
	if p == FuncPair {
		var err error
		if proto, err = b.AddFuncProto(intID, []builder.Param{{Name: "a", Type: t}}); err != nil {
			return err
		}
	}
	second := uint64(1)
	if changed {
		second = 2
	}
	for i := range n {
		var err error
		switch p {
		case TypedefPair:
			_, err = b.AddTypedef(fmt.Sprintf("t%d", i), t)
		case StructPair:
			_, err = b.AddStruct(fmt.Sprintf("s%d", i), 16, []builder.Member{
				{Name: "a", Type: intID}, {Name: "b", Type: t, BitOffset: 64}})
		case EnumPair:
			_, err = b.AddEnum(fmt.Sprintf("e%d", i), 4, false, []builder.Enumerator{
				{Name: "A"}, {Name: "B", Value: second}})
		case FuncPair:
			_, err = b.AddFunc(fmt.Sprintf("f%d", i), proto, btf.LinkageGlobal)
		case PointerPair:
			var ptr btf.TypeID
			if ptr, err = b.AddPointer(t); err == nil {
				_, err = b.AddTypedef(fmt.Sprintf("p%d", i), ptr)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Empty returns standalone BTF of no types, the other side of a diff that
// adds or removes every type.
func Empty() ([]byte, error) {
	return builder.New().Marshal(builder.Options{})
}
