package core

import (
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// ladder returns BTF holding structs s0 ... s27, each with two members
// of the next, and leaf { int x; }: no type refers to itself, but to
// match s0 against the same ladder, libbpf's __bpf_core_types_match
// visits all 2^28 paths.
func ladder(t *testing.T, leafSize uint32) (*btf.Spec, uint32) {
	t.Helper()
	b := builder.New()
	leafInt, err := b.AddInt("int", leafSize, btf.IntInfo{Encoding: btf.IntSigned, Bits: uint8(8 * leafSize)})
	if err != nil {
		t.Fatal(err)
	}
	const n = 28
	first := b.NextID()
	for i := range n {
		next := first + btf.TypeID(i) + 1
		name := "s" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if _, err := b.AddStruct(name, 8, []builder.Member{{Name: "a", Type: next}, {Name: "b", Type: next}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.AddStruct("leaf", 8, []builder.Member{{Name: "x", Type: leafInt}}); err != nil {
		t.Fatal(err)
	}
	zero, err := b.AddString("0")
	if err != nil {
		t.Fatal(err)
	}
	return parseBuilt(t, b), zero
}

// TestBudget: matching that would take exponential time gives an error
// quickly instead.
func TestBudget(t *testing.T) {
	local, zero := ladder(t, 4)
	target, _ := ladder(t, 4)
	for _, kind := range []ext.Kind{ext.TypeMatches, ext.TypeExists, ext.FieldByteOffset} {
		cands := new(candList)
		cands.add(target, 2)
		var oc outcome
		err := calcReloInsn(local, ext.CORERelo{TypeID: 2, AccessStrOff: zero, Kind: kind}, &cands, nil, &oc)
		if kind == ext.TypeMatches && !errors.Is(err, ErrTooBig) {
			t.Errorf("%v: got %v, want ErrTooBig", kind, err)
		}
	}
}
