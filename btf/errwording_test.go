package btf_test

import (
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
)

// TestFormatErrorWording: a FormatError names the type, where it is and
// what is wrong, each once: not "type 2: type section offset 16: type
// refers to type 9, beyond the last type 2", nor an offset for an input
// that has none.
func TestFormatErrorWording(t *testing.T) {
	withRef := func(k btf.Kind, vlen int, sizeType uint32, extra ...uint32) []byte {
		b := newRaw(0)
		b.typ("int", btf.KindInt, 0, false, 4, 32)
		b.typ("", k, vlen, false, sizeType, extra...)
		return b.bytes()
	}
	noStrings := newRaw(0)
	noStrings.strs = nil
	openEnd := newRaw(0)
	openEnd.typ("int", btf.KindInt, 0, false, 4, 32)
	openEnd.strs = openEnd.strs[:len(openEnd.strs)-1]
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"pointer", withRef(btf.KindPointer, 0, 9), "btf: type 2 (type section offset 16): refers to type 9, beyond the last (2)"},
		{"member", withRef(btf.KindStruct, 1, 4, 0, 7, 0), "btf: type 2 (type section offset 16): member 0 refers to type 7, beyond the last (2)"},
		{"array", withRef(btf.KindArray, 0, 0, 8, 1, 2), "btf: type 2 (type section offset 16): element type refers to type 8, beyond the last (2)"},
		{"no strings", noStrings.bytes(), "btf: string section: it is empty, without the empty string"},
		{"open end", openEnd.bytes(), "btf: string section offset 3: not NUL: the last string has no end"},
		{"empty", nil, "btf: the input is empty"},
	} {
		_, err := btf.Parse(c.raw, btf.Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
		if fe := new(btf.FormatError); c.raw != nil && !errors.As(err, &fe) {
			t.Errorf("%s: %T, want a *btf.FormatError", c.name, err)
		}
	}
}
