package btf_test

import (
	"slices"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
)

// TestRefs checks Refs against the accessors for every type of both
// kernels.
func TestRefs(t *testing.T) {
	for _, s := range []*btf.Spec{hostSpec(t), debianSpec(t)} {
		for id, typ := range s.All() {
			var want []btf.TypeID
			switch typ.Kind() {
			case btf.KindArray:
				want = append(want, typ.Array().Type, typ.Array().Index)
			case btf.KindStruct, btf.KindUnion:
				for _, m := range typ.Members() {
					want = append(want, m.Type)
				}
			case btf.KindFuncProto:
				want = append(want, typ.Ref())
				for _, p := range typ.Params() {
					want = append(want, p.Type)
				}
			case btf.KindDatasec:
				for _, v := range typ.VarSecinfos() {
					want = append(want, v.Type)
				}
			case btf.KindPointer, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict,
				btf.KindTypeTag, btf.KindFunc, btf.KindVar, btf.KindDeclTag:
				want = append(want, typ.Ref())
			}
			if got := slices.Collect(typ.Refs()); !slices.Equal(got, want) {
				t.Fatalf("type %d (%v): Refs = %v, want %v", id, typ, got, want)
			}
		}
	}
	var void btf.Type
	for range void.Refs() {
		t.Fatal("void has references")
	}
}
