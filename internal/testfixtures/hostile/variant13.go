package hostile

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Variant13 names a shape of the thirteenth campaign (issue 37): records
// whose members are moved between two versions, or repeat one name, at
// scale (btf diff matched members by name in quadratic time until
// session 30), many anonymous members at one offset, and unions of
// thousands of members. Each has a twin (BuildVariant13Twin): the same
// records with their members moved, for diff. n counts members in all;
// a record holds at most 65,535 (BTF's vlen).
type Variant13 int

// The variants. [1] is always "int".
const (
	MovedMembers  Variant13 = iota // structs "s<k>" of up to 1,024 int members "m<i>" 4 bytes apart; the twin holds them rotated by half (every member at another offset)
	RepeatNames                    // structs "r<k>" of up to 65,535 int members all named "x" at distinct offsets; the twin names every other one "y"
	AnonOneOffset                  // structs "a<k>" of up to 65,535 anonymous unions all at offset 0, each holding one int "f<i>"; the twin lists them in reverse
	WideUnion                      // unions "u<k>" of up to 65,535 members "v<i>", each its own struct "e<i>" of one int; the twin lists them in reverse
	numVariant13s
)

// Variant13s lists every variant.
func Variant13s() []Variant13 { return upTo(numVariant13s) }

// String names the variant in lower case with dashes, as in "moved-members".
func (v Variant13) String() string {
	return [...]string{"moved-members", "repeat-names", "anon-one-offset", "wide-union"}[v]
}

// BuildVariant13 returns the variant v of n members in all.
func BuildVariant13(v Variant13, n int) ([]byte, error) { return buildVariant13(v, n, false) }

// BuildVariant13Twin returns v's twin: the same records, their members
// moved (or renamed, for RepeatNames).
func BuildVariant13Twin(v Variant13, n int) ([]byte, error) { return buildVariant13(v, n, true) }

func buildVariant13(v Variant13, n int, twin bool) ([]byte, error) {
	if v < 0 || v >= numVariant13s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return marshal(fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID) error {
		return addVariant13(b, v, intID, n, twin)
	})
}

// BuildVariant13On is BuildVariant13 as split BTF on base, raw BTF with
// an "int".
func BuildVariant13On(base []byte, v Variant13, n int) ([]byte, error) {
	if v < 0 || v >= numVariant13s {
		return nil, fmt.Errorf("hostile: unknown variant %d", v)
	}
	return splitOn(base, fmt.Sprintf("%v of %d", v, n), func(b *builder.Builder, intID btf.TypeID, _ *btf.Spec) error {
		return addVariant13(b, v, intID, n, false)
	})
}

// BuildVariant13OnSplit is BuildVariant13 as split BTF on mid, itself
// split BTF on base (a module on a module on vmlinux): its ids start
// after base's and mid's types.
func BuildVariant13OnSplit(base, mid []byte, v Variant13, n int) ([]byte, error) {
	bs, err := btf.Parse(base, btf.Options{})
	if err != nil {
		return nil, fmt.Errorf("hostile: split base: %w", err)
	}
	defer bs.Close()
	ms, err := btf.Parse(mid, btf.Options{Base: bs})
	if err != nil {
		return nil, fmt.Errorf("hostile: middle split: %w", err)
	}
	defer ms.Close()
	intT, err := bs.FindOne("int", btf.FindOptions{Kind: btf.KindInt})
	if err != nil {
		return nil, fmt.Errorf("hostile: split base: %w", err)
	}
	b, err := builder.NewSplit(ms)
	if err != nil {
		return nil, err
	}
	b.AllowManyTypes()
	// A member of the middle's last type ties the top to the middle.
	if _, err := b.AddStruct("top", 0, nil); err != nil {
		return nil, err
	}
	if _, err := b.AddPointer(ms.LastID()); err != nil {
		return nil, err
	}
	if err := addVariant13(b, v, intT.ID(), n, false); err != nil {
		return nil, fmt.Errorf("hostile: %v of %d on a split base: %w", v, n, err)
	}
	return b.Marshal(builder.Options{})
}

// addVariant13 adds v's records of n members in all to b.
func addVariant13(b *builder.Builder, v Variant13, intID btf.TypeID, n int, twin bool) error {
	width := 65_535
	if v == MovedMembers {
		width = 1024
	}
	for k := 0; n > 0; k++ {
		w := min(n, width)
		n -= w
		if err := addRecord13(b, v, intID, k, w, twin); err != nil {
			return err
		}
	}
	return nil
}

// addRecord13 adds record k of v, of w members.
func addRecord13(b *builder.Builder, v Variant13, intID btf.TypeID, k, w int, twin bool) error {
	ms := make([]builder.Member, w)
	var err error
	switch v {
	case MovedMembers:
		for i := range ms {
			slot := i
			if twin {
				slot = (i + w/2) % w
			}
			ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: intID, BitOffset: uint32(32 * slot)}
		}
		_, err = b.AddStruct(fmt.Sprintf("s%d", k), uint32(4*w), ms)
	case RepeatNames:
		for i := range ms {
			name := "x"
			if twin && i%2 == 1 {
				name = "y"
			}
			ms[i] = builder.Member{Name: name, Type: intID, BitOffset: uint32(32 * i)}
		}
		_, err = b.AddStruct(fmt.Sprintf("r%d", k), uint32(4*w), ms)
	case AnonOneOffset:
		for i := range ms {
			j := i
			if twin {
				j = w - 1 - i
			}
			u, err := b.AddUnion("", 4, []builder.Member{{Name: fmt.Sprintf("f%d", j), Type: intID}})
			if err != nil {
				return err
			}
			ms[i] = builder.Member{Type: u}
		}
		_, err = b.AddStruct(fmt.Sprintf("a%d", k), 4, ms)
	case WideUnion:
		ids := make([]btf.TypeID, w)
		for i := range ids {
			if ids[i], err = b.AddStruct(fmt.Sprintf("e%d_%d", k, i), 4, []builder.Member{{Name: "v", Type: intID}}); err != nil {
				return err
			}
		}
		for i := range ms {
			j := i
			if twin {
				j = w - 1 - i
			}
			ms[i] = builder.Member{Name: fmt.Sprintf("v%d", j), Type: ids[j]}
		}
		_, err = b.AddUnion(fmt.Sprintf("u%d", k), 4, ms)
	}
	return err
}
