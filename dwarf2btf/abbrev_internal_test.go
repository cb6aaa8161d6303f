package dwarf2btf

import (
	"encoding/binary"
	"testing"
)

// TestAbbrevLazy checks the lazy table against what libdw's
// __libdw_findabbrev gives (pahole's reader): a code's first declaration
// wins wherever it is stored (dense or sparse), declarations past the
// code asked for are not read, and a malformed one is the error of a
// lookup that reaches it. It also checks that a large first code, as in
// hostile.AbbrevTails, grows no dense slice.
func TestAbbrevLazy(t *testing.T) {
	decl := func(b []byte, code uint64, tag byte) []byte {
		b = binary.AppendUvarint(b, code)
		return append(b, tag, 0, 0x03, 0x08, 0, 0) // DW_AT_name, DW_FORM_string
	}
	var ab []byte
	ab = decl(ab, 70, 0x13)   // sparse: 70 >= 2*1 + 64
	ab = decl(ab, 5000, 0x13) // sparse
	ab = decl(ab, 1, 0x24)    // dense
	ab = decl(ab, 5000, 0x16) // a second 5000: the first wins
	ab = decl(ab, 1, 0x0f)    // a second 1
	ab = decl(ab, 70, 0x16)   // a second 70, now in the dense range: the first wins
	ab = append(ab, 7, 0, 0)  // code 7, tag 0: malformed
	ab = decl(ab, 8, 0x24)    // past the malformed one
	ab = append(ab, 0)
	d := &dwarfData{order: binary.LittleEndian, abbrev: ab}
	tab, err := d.parseAbbrevs(0, &unitHeader{version: 5, addrSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	want := func(code uint64, tag uint16, n int) {
		t.Helper()
		if a := tab.get(code); a == nil || a.tag != tag {
			t.Errorf("code %d: %+v, want tag %#x", code, a, tag)
		}
		if tab.n != n {
			t.Errorf("code %d: %d declarations read, want %d", code, tab.n, n)
		}
	}
	want(5000, 0x13, 2)
	if len(tab.dense) != 0 {
		t.Errorf("a dense slice of %d for codes 70 and 5000", len(tab.dense))
	}
	want(1, 0x24, 3)
	want(70, 0x13, 3)
	if a := tab.get(8); a != nil || tab.err == nil || !tab.done {
		t.Errorf("code 8, behind a malformed declaration: %+v, error %v", a, tab.err)
	}
	want(70, 0x13, 7) // the malformed one counts
	want(5000, 0x13, 7)
	want(1, 0x24, 7)
}
