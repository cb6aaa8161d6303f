package wire

import "testing"

// TestKindFields checks the field table against the layouts: every offset
// lies inside the part of the record it belongs to and is word aligned.
func TestKindFields(t *testing.T) {
	for k := range NumKinds {
		f, l := KindFields[k], DefaultLayouts[k]
		for _, off := range []uint8{f.Ref0, f.Ref1} {
			if off != NoField && (off%4 != 0 || uint32(off)+4 > TypeSize+uint32(l.InfoSize)) {
				t.Errorf("%v: ref at %d outside the %d-byte fixed part", Kind(k), off, TypeSize+l.InfoSize)
			}
		}
		for _, off := range []uint8{f.ElemRef, f.ElemName} {
			if off != NoField && (off%4 != 0 || off+4 > l.ElemSize) {
				t.Errorf("%v: element field at %d outside the %d-byte element", Kind(k), off, l.ElemSize)
			}
		}
	}
	// Spot checks against btf.rst.
	if f := KindFields[KindArray]; f.Ref0 != 12 || f.Ref1 != 16 {
		t.Errorf("ARRAY refs at %d, %d; want 12 (type), 16 (index_type)", f.Ref0, f.Ref1)
	}
	if f := KindFields[KindStruct]; f.ElemName != 0 || f.ElemRef != 4 {
		t.Errorf("STRUCT member fields at %d, %d; want 0 (name_off), 4 (type)", f.ElemName, f.ElemRef)
	}
}

func TestPutWord(t *testing.T) {
	b := make([]byte, 8)
	PutWord(b, 4, 0xdeadbeef)
	if Word(b, 4) != 0xdeadbeef || Word(b, 0) != 0 {
		t.Fatalf("PutWord/Word disagree: % x", b)
	}
}
