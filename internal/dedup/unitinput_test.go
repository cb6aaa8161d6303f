package dedup_test

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestAddUnitPieces writes a module's types into Units of 97 types each,
// as a DWARF encoder's workers write its compile units, two Units taking
// turns with one NameCache over the module's strings, and checks that the
// result is byte for byte that of the module appended as it is (AddSpec,
// itself held to libbpf's output by the golden tests). The units are
// given bounds of their names (GrowNames) in turn: none, one too small,
// one too large, which change how their arrays grow, not what they hold.
func TestAddUnitPieces(t *testing.T) {
	vm, base := debian(t)
	for _, name := range []string{"af_key", "kvm"} {
		t.Run(name, func(t *testing.T) {
			mod := module(t, name)
			m := dedup.New(base, dedup.Options{})
			sec, _ := mod.StringSection()
			cache := m.NewNameCache(sec)
			units := []*dedup.Unit{m.NewUnit(), m.NewUnit()}
			u := units[0]
			u.SetCache(cache)
			u.Reset(m.NextID())
			n := 0
			bounds := [][2]int{{0, 0}, {3, 10}, {97 * 64, 97 * 64 * 16}}
			flush := func() {
				if err := m.AddUnit(u, 0); err != nil {
					t.Fatal(err)
				}
				u = units[n/97%2]
				u.SetCache(cache)
				u.Reset(m.NextID())
				b := bounds[n/97%len(bounds)]
				u.GrowNames(b[0], b[1])
			}
			for id, typ := range mod.Types(btf.ScopeOwn) {
				// Ids are the module's: the Merger numbers its own
				// types after the base, as the module does.
				if err := writeType(u, typ); err != nil {
					t.Fatalf("[%d]: %v", id, err)
				}
				if n++; n%97 == 0 {
					flush()
				}
			}
			flush()
			got, err := m.Dedup(builder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := dedup.Specs(base, mod)
			if err != nil {
				t.Fatal(err)
			}
			equalBTF(t, got, want, vm)
		})
	}
}

// view returns b as a string without copying, as a DWARF encoder passes
// the names it reads in place.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// writeType writes t into u with t's ids.
func writeType(u *dedup.Unit, t btf.Type) error {
	name := view(t.NameBytes())
	var err error
	switch t.Kind() {
	case btf.KindInt:
		_, err = u.AddInt(name, t.Size(), t.Int())
	case btf.KindFloat:
		_, err = u.AddFloat(name, t.Size())
	case btf.KindPointer:
		_, err = u.AddPointer(t.Ref())
	case btf.KindConst:
		_, err = u.AddConst(t.Ref())
	case btf.KindVolatile:
		_, err = u.AddVolatile(t.Ref())
	case btf.KindRestrict:
		_, err = u.AddRestrict(t.Ref())
	case btf.KindTypedef:
		_, err = u.AddTypedef(name, t.Ref())
	case btf.KindTypeTag:
		_, err = u.AddTypeTag(name, t.Ref(), t.KindFlag())
	case btf.KindForward:
		_, err = u.AddForward(name, t.KindFlag())
	case btf.KindArray:
		_, err = u.AddArray(t.Array())
	case btf.KindStruct, btf.KindUnion:
		var ms []builder.Member
		for _, m := range t.Members() {
			ms = append(ms, builder.Member{Name: view(m.NameBytes()), Type: m.Type, BitOffset: m.BitOffset, BitfieldSize: m.BitfieldSize})
		}
		if t.Kind() == btf.KindUnion {
			_, err = u.AddUnion(name, t.Size(), ms)
		} else {
			_, err = u.AddStruct(name, t.Size(), ms)
		}
	case btf.KindEnum, btf.KindEnum64:
		var vs []builder.Enumerator
		for _, v := range t.EnumValues() {
			vs = append(vs, builder.Enumerator{Name: view(v.NameBytes()), Value: v.Value})
		}
		if t.Kind() == btf.KindEnum {
			_, err = u.AddEnum(name, t.Size(), t.KindFlag(), vs)
		} else {
			_, err = u.AddEnum64(name, t.Size(), t.KindFlag(), vs)
		}
	case btf.KindFuncProto:
		var ps []builder.Param
		for _, p := range t.Params() {
			ps = append(ps, builder.Param{Name: view(p.NameBytes()), Type: p.Type})
		}
		_, err = u.AddFuncProto(t.Ref(), ps)
	case btf.KindFunc:
		_, err = u.AddFunc(name, t.Ref(), t.Linkage())
	case btf.KindVar:
		_, err = u.AddVar(name, t.Ref(), t.Linkage())
	case btf.KindDatasec:
		var vs []btf.VarSecinfo
		for _, v := range t.VarSecinfos() {
			vs = append(vs, v)
		}
		_, err = u.AddDatasec(name, t.Size(), vs)
	case btf.KindDeclTag:
		_, err = u.AddDeclTag(name, t.Ref(), t.ComponentIdx(), t.KindFlag())
	default:
		err = fmt.Errorf("kind %v", t.Kind())
	}
	return err
}

// TestAddUnitDeferred writes units numbered from 1, as a worker does
// before it knows where they go, whose arrays' index type is Deferred,
// defined by an INT that the merge adds after the first; the result is
// the same as from a Builder given the same types with their final ids,
// and so are the strings' order (a name first used by the second unit
// comes after those of the INT written in between).
func TestAddUnitDeferred(t *testing.T) {
	b := builder.New()
	m := dedup.New(nil, dedup.Options{})
	u := m.NewUnit()
	tail := m.NewUnit()
	for unit := range 2 {
		u.Reset(1)
		c, _ := u.AddInt("char", 1, btf.IntInfo{Encoding: btf.IntSigned, Bits: 8})
		a, _ := u.AddArray(btf.ArrayInfo{Type: c, Index: dedup.Deferred, Nelems: 16})
		names := []string{"first", "second"}
		if _, err := u.AddStruct(names[unit], 16, []builder.Member{{Name: "buf", Type: a}}); err != nil {
			t.Fatal(err)
		}
		index := btf.TypeID(4) // the INT added after the first unit
		bc, _ := b.AddInt("char", 1, btf.IntInfo{Encoding: btf.IntSigned, Bits: 8})
		ba, _ := b.AddArray(btf.ArrayInfo{Type: bc, Index: index, Nelems: 16})
		b.AddStruct(names[unit], 16, []builder.Member{{Name: "buf", Type: ba}})
		if err := m.AddUnit(u, index); err != nil {
			t.Fatal(err)
		}
		if unit == 0 {
			tail.Reset(m.NextID())
			if _, err := tail.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
				t.Fatal(err)
			}
			if err := m.AddUnit(tail, 0); err != nil {
				t.Fatal(err)
			}
			b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		}
	}
	if got, want := m.NextID(), b.NextID(); got != want {
		t.Fatalf("NextID %d, want %d", got, want)
	}
	got, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := dedup.Marshal(b, nil, builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalBTF(t, got, want, nil)
}

// TestUnitErrors checks what a Unit and AddUnit refuse.
func TestUnitErrors(t *testing.T) {
	m := dedup.New(nil, dedup.Options{})
	u := m.NewUnit()
	if _, err := u.AddTypedef("a\x00b", 0); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("name with a NUL: %v", err)
	}
	if _, err := u.AddPointer(0); err == nil {
		t.Error("a Unit with an error went on writing")
	}
	if err := m.AddUnit(u, 0); err == nil {
		t.Error("a Unit with an error was appended")
	}
	u.Reset(1)
	if _, err := u.AddStruct("s", 8, []builder.Member{{Name: "x", BitOffset: 1 << 24, BitfieldSize: 3}}); err == nil {
		t.Error("a bitfield offset past 24 bits was written")
	}
	u.Reset(1)
	if _, err := u.AddEnum("e", 4, false, []builder.Enumerator{{Name: "v", Value: 1 << 40}}); err == nil {
		t.Error("a 64-bit value in an ENUM was written")
	}
	other := dedup.New(nil, dedup.Options{})
	u = other.NewUnit()
	if _, err := u.AddPointer(0); err != nil {
		t.Fatal(err)
	}
	if err := m.AddUnit(u, 0); err == nil {
		t.Error("a Unit of another Merger was appended")
	}
	// A reference to a type never added is found by Dedup.
	u = m.NewUnit()
	u.AddPointer(5)
	if err := m.AddUnit(u, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Dedup(builder.Options{}); err == nil {
		t.Error("a PTR to a type never added was deduplicated")
	}
	if err := m.AddUnit(m.NewUnit(), 0); err != dedup.ErrDone {
		t.Errorf("AddUnit after Dedup: %v, want ErrDone", err)
	}
}
