package btf

import (
	"testing"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestKindString checks that every kind the wire package knows has a name,
// that ParseKind reads it back, and that other numbers print as numbers.
func TestKindString(t *testing.T) {
	for k := range wire.MaxKind + 1 {
		s := Kind(k).String()
		if known := s != "Kind("+uitoa(uint64(k))+")"; known != (k < wire.NumKinds) {
			t.Errorf("kind %d: %q", k, s)
		}
		if k == 0 || k >= wire.NumKinds {
			continue
		}
		if got, ok := ParseKind(Kind(k).String()); !ok || got != Kind(k) {
			t.Errorf("ParseKind(%q) = %v, %v", Kind(k), got, ok)
		}
	}
}

// TestConstantsMatchWire checks the public numbers of kinds, INT encodings
// and linkages against the wire layout's, which the package decodes with.
func TestConstantsMatchWire(t *testing.T) {
	kinds := []struct {
		pub  Kind
		wire wire.Kind
	}{
		{KindUnknown, wire.KindUnknown}, {KindInt, wire.KindInt}, {KindPointer, wire.KindPointer},
		{KindArray, wire.KindArray}, {KindStruct, wire.KindStruct}, {KindUnion, wire.KindUnion},
		{KindEnum, wire.KindEnum}, {KindForward, wire.KindForward}, {KindTypedef, wire.KindTypedef},
		{KindVolatile, wire.KindVolatile}, {KindConst, wire.KindConst}, {KindRestrict, wire.KindRestrict},
		{KindFunc, wire.KindFunc}, {KindFuncProto, wire.KindFuncProto}, {KindVar, wire.KindVar},
		{KindDatasec, wire.KindDatasec}, {KindFloat, wire.KindFloat}, {KindDeclTag, wire.KindDeclTag},
		{KindTypeTag, wire.KindTypeTag}, {KindEnum64, wire.KindEnum64},
	}
	if len(kinds) != wire.NumKinds {
		t.Fatalf("%d public kinds, wire has %d", len(kinds), wire.NumKinds)
	}
	for _, k := range kinds {
		if uint8(k.pub) != uint8(k.wire) {
			t.Errorf("%v = %d, wire says %d", k.pub, k.pub, k.wire)
		}
	}
	if IntSigned != wire.IntSigned || IntChar != wire.IntChar || IntBool != wire.IntBool {
		t.Error("INT encoding bits differ from wire's")
	}
	if LinkageStatic != wire.LinkageStatic || LinkageGlobal != wire.LinkageGlobal || LinkageExtern != wire.LinkageExtern {
		t.Error("linkages differ from wire's")
	}
	if DefaultMaxSize != input.DefaultLimit {
		t.Errorf("DefaultMaxSize = %d, input's limit is %d", DefaultMaxSize, input.DefaultLimit)
	}
}
