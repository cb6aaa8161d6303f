package wire

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShapes checks the shape table against the layouts: every offset lies
// inside the part of the record it belongs to and is word aligned, and the
// word form says the same as the byte form.
func TestShapes(t *testing.T) {
	for k := range NumKinds {
		sh, l := &Shapes[k], DefaultLayouts[k]
		fixed := TypeSize + uint32(l.InfoSize)
		for _, f := range []struct{ at, mask uint32 }{{sh.Ref0At, sh.Ref0Mask}, {sh.Ref1At, sh.Ref1Mask}} {
			if f.mask != 0 && (f.at%4 != 0 || f.at+4 > fixed || f.at < SizeTypeAt) {
				t.Errorf("%v: ref at %d outside the %d-byte fixed part", Kind(k), f.at, fixed)
			}
		}
		for _, f := range []struct{ at, mask uint32 }{{sh.ElemTypeAt, sh.ElemTypeMask}, {sh.ElemNameAt, sh.ElemNameMask}} {
			if f.mask != 0 && (f.at%4 != 0 || f.at+4 > uint32(l.ElemSize) || sh.ElemSize != uint32(l.ElemSize)) {
				t.Errorf("%v: element field at %d outside the %d-byte element", Kind(k), f.at, l.ElemSize)
			}
		}
		w := sh.W
		word := func(at, mask uint32) int {
			if mask == 0 {
				return -1
			}
			return int(at / 4)
		}
		want := WordShape{
			Ref0: word(sh.Ref0At, sh.Ref0Mask), Ref1: word(sh.Ref1At, sh.Ref1Mask),
			Fixed: int(fixed / 4), Elem: int(l.ElemSize / 4),
			ElemRef: word(sh.ElemTypeAt, sh.ElemTypeMask), ElemName: word(sh.ElemNameAt, sh.ElemNameMask),
		}
		if w != want {
			t.Errorf("%v: word shape %+v, want %+v", Kind(k), w, want)
		}
	}
	// Spot checks against btf.rst.
	if sh := Shapes[KindArray]; sh.Ref0At != 12 || sh.Ref1At != 16 || sh.Ref0Mask != ^uint32(0) || sh.ElemSize != 0 {
		t.Errorf("ARRAY shape %+v", sh)
	}
	if sh := Shapes[KindStruct]; sh.Ref0Mask != 0 || sh.ElemSize != 12 || sh.ElemTypeAt != 4 || sh.ElemNameAt != 0 || sh.ElemNameMask == 0 {
		t.Errorf("STRUCT shape %+v", sh)
	}
	if sh := Shapes[KindDatasec]; sh.ElemNameMask != 0 || sh.ElemTypeAt != 0 || sh.ElemTypeMask == 0 {
		t.Errorf("DATASEC shape %+v", sh)
	}
	if sh := Shapes[KindInt]; sh.Ref0Mask|sh.Ref1Mask|sh.ElemSize != 0 {
		t.Errorf("INT shape %+v", sh)
	}
	if sh := Shapes[MaxKind]; sh.Ref0Mask|sh.Ref1Mask|sh.ElemSize != 0 || sh.W.Ref0 != -1 || sh.W.ElemRef != -1 {
		t.Errorf("undescribed kind's shape %+v", sh)
	}
	if InfoUnused != 0x60ff0000 {
		t.Errorf("InfoUnused = %#x", InfoUnused)
	}
}

// TestVisitors checks ForRefs, ForNames, RemapRefs and IsRef on records
// written out by hand from btf.rst, as bytes and as words.
func TestVisitors(t *testing.T) {
	tests := []struct {
		name        string
		r           Record
		refs, names []uint32 // byte offsets
	}{
		{"int", rec(1, Info(KindInt, 0, false), 4, IntWord(IntSigned, 0, 32)), nil, []uint32{0}},
		{"ptr", rec(0, Info(KindPointer, 0, false), 5), []uint32{8}, []uint32{0}},
		{"array", rec(0, Info(KindArray, 0, false), 0, 7, 8, 3), []uint32{12, 16}, []uint32{0}},
		{"struct", rec(1, Info(KindStruct, 2, true), 8, 2, 3, 0, 3, 4, MemberOffsetWord(3, 32)),
			[]uint32{16, 28}, []uint32{0, 12, 24}},
		{"func_proto", rec(0, Info(KindFuncProto, 2, false), 9, 1, 2, 0, 3), []uint32{8, 16, 24}, []uint32{0, 12, 20}},
		{"enum64", rec(1, Info(KindEnum64, 1, false), 8, 2, 1, 0), nil, []uint32{0, 12}},
		{"datasec", rec(1, Info(KindDatasec, 2, false), 16, 4, 0, 8, 5, 8, 8), []uint32{12, 24}, []uint32{0}},
		{"var", rec(1, Info(KindVar, 0, false), 6, LinkageGlobal), []uint32{8}, []uint32{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Trailing bytes (the rest of a section) are not visited.
			r := append(slices.Clone(tt.r), rec(99, 99, 99)...)
			var refs, names []uint32
			r.ForRefs(func(at uint32) { refs = append(refs, at) })
			r.ForNames(func(at uint32) { names = append(names, at) })
			if d := cmp.Diff(tt.refs, refs); d != "" {
				t.Errorf("ForRefs: %s", d)
			}
			if d := cmp.Diff(tt.names, names); d != "" {
				t.Errorf("ForNames: %s", d)
			}
			w, ok := Words(tt.r)
			if !ok {
				t.Fatal("unaligned test record")
			}
			wr := WordRecord(w)
			var wrefs, wnames []uint32
			wr.ForRefs(func(i uint32) { wrefs = append(wrefs, uint32(i)*4) })
			wr.ForNames(func(i uint32) { wnames = append(wnames, uint32(i)*4) })
			if !slices.Equal(wrefs, refs) || !slices.Equal(wnames, names) {
				t.Errorf("word visitors: refs %v names %v; byte visitors: %v %v", wrefs, wnames, refs, names)
			}
			for i := range wr {
				if got, want := wr.Shape().IsRef(i), slices.Contains(refs, uint32(i)*4); got != want {
					t.Errorf("IsRef(%d) = %v, want %v", i, got, want)
				}
			}
			before := slices.Clone(r)
			r.RemapRefs(func(id uint32) uint32 { return id + 1000 })
			for at := uint32(0); at < uint32(len(r)); at += 4 {
				want := Word(before, at)
				if slices.Contains(refs, at) {
					want += 1000
				}
				if got := Word(r, at); got != want {
					t.Errorf("after RemapRefs, word at %d = %d, want %d", at, got, want)
				}
			}
		})
	}
}

// TestMemberBits checks the decoding of member offsets by the kind flag.
func TestMemberBits(t *testing.T) {
	plain := rec(1, Info(KindStruct, 1, false), 4, 2, 3, 40)
	if _, _, off, bits := plain.MemberBits(0); off != 40 || bits != 0 {
		t.Errorf("plain member: offset %d, bits %d; want 40, 0", off, bits)
	}
	flagged := rec(1, Info(KindStruct, 1, true), 4, 2, 3, MemberOffsetWord(5, 40))
	if name, typ, off, bits := flagged.MemberBits(0); name != 2 || typ != 3 || off != 40 || bits != 5 {
		t.Errorf("bitfield member: %d %d %d %d; want 2 3 40 5", name, typ, off, bits)
	}
	if typ := flagged.MemberType(0); typ != 3 {
		t.Errorf("MemberType = %d, want 3", typ)
	}
	proto := rec(0, Info(KindFuncProto, 2, false), 9, 1, 2, 0, 3)
	proto.SetParamType(1, 77)
	if _, typ := proto.Param(1); typ != 77 || proto.ParamType(1) != 77 || proto.ParamType(0) != 2 {
		t.Errorf("SetParamType: param 1 type %d, want 77", typ)
	}
}

// TestIter checks the section walk: offsets, whole records, and the stop
// at a truncated record or an undescribed kind.
func TestIter(t *testing.T) {
	s := DefaultLayouts.Sizes()
	sec := slices.Concat(
		rec(1, Info(KindInt, 0, false), 4, IntWord(0, 0, 32)),
		rec(0, Info(KindPointer, 0, false), 1),
		rec(2, Info(KindStruct, 1, false), 8, 3, 2, 0))
	var offs []uint32
	it := s.Iter(sec)
	for it.Next() {
		if size := s.Of(it.Rec.Info()); size != uint32(len(it.Rec)) {
			t.Errorf("record at %d: %d bytes, want %d", it.Off, len(it.Rec), size)
		}
		offs = append(offs, it.Off)
	}
	if !it.Done() || !slices.Equal(offs, []uint32{0, 16, 28}) {
		t.Errorf("walk: offsets %v, done %v; want [0 16 28], true", offs, it.Done())
	}
	for _, bad := range [][]byte{sec[:len(sec)-4], append(slices.Clone(sec), rec(0, Info(MaxKind, 0, false), 0)...), sec[:30]} {
		it := s.Iter(bad)
		for it.Next() {
		}
		if it.Done() {
			t.Errorf("walk of a bad %d-byte section reached its end", len(bad))
		}
	}
	it = s.Iter(nil)
	if it.Next() || !it.Done() {
		t.Errorf("empty section: Next or not Done")
	}
}

func TestPutWord(t *testing.T) {
	b := make([]byte, 8)
	PutWord(b, 4, 0xdeadbeef)
	if Word(b, 4) != 0xdeadbeef || Word(b, 0) != 0 {
		t.Fatalf("PutWord/Word disagree: % x", b)
	}
}

// TestVoid checks that a nil Record reads as void.
func TestVoid(t *testing.T) {
	var r Record
	if !r.IsVoid() || r.Kind() != KindUnknown || r.NameOff() != 0 || r.Vlen() != 0 || r.KindFlag() || r.SizeType() != 0 {
		t.Errorf("nil Record: void %v, kind %v, name %d, vlen %d, size %d", r.IsVoid(), r.Kind(), r.NameOff(), r.Vlen(), r.SizeType())
	}
	if rec(0, Info(KindPointer, 0, false), 1).IsVoid() {
		t.Errorf("a PTR record is void")
	}
}
