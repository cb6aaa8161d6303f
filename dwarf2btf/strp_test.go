package dwarf2btf

import (
	"bytes"
	"testing"
)

// TestStrp checks dwarfData.strp, which finds a string's end in a bitmap
// of the section's NUL bytes, against strAt, which reads the string, at
// every offset of sections with short, empty, long (across 64-byte words)
// and unterminated strings.
func TestStrp(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 200)
	secs := [][]byte{
		nil,
		{0},
		[]byte("abc"),
		[]byte("abc\x00"),
		[]byte("\x00\x00a\x00bc\x00"),
		append(append([]byte("name\x00"), long...), 0),
		append(append([]byte("name\x00"), long...), "tail"...),
		append(bytes.Repeat([]byte("0123456789abcdef\x00"), 20), "end"...),
	}
	for si, sec := range secs {
		d := &dwarfData{str: sec}
		for off := uint64(0); off <= uint64(len(sec))+1; off++ {
			got, want := d.strp(off), strAt(sec, off)
			if !bytes.Equal(got, want) || (got == nil) != (want == nil) || cap(got) != len(got) {
				t.Errorf("section %d, offset %d: strp %q (cap %d), strAt %q", si, off, got, cap(got), want)
			}
			if len(got) > 0 && &got[0] != &sec[off] {
				t.Errorf("section %d, offset %d: strp does not return the section's bytes", si, off)
			}
		}
	}
}
