package ext_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

var objects = []string{"elf/prog.bpf.o.gz", "core/fields.bpf.o.gz", "core/types.bpf.o.gz", "core/matches.bpf.o.gz"}

// sections returns the .BTF and .BTF.ext sections of a committed object.
func sections(tb testing.TB, rel string) (*btf.Spec, []byte) {
	tb.Helper()
	f, err := elf.NewFile(bytes.NewReader(testfixtures.Read(tb, rel)))
	if err != nil {
		tb.Fatal(err)
	}
	get := func(name string) []byte {
		b, err := f.Section(name).Data()
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	s, err := btf.Parse(get(".BTF"), btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s, get(".BTF.ext")
}

// summary is everything an Ext holds, resolved to strings.
type summary struct {
	Funcs, Lines, Relos []string
}

func summarize(tb testing.TB, e *ext.Ext, s *btf.Spec) summary {
	tb.Helper()
	str := func(off uint32) string {
		b, ok := ext.String(s, off)
		if !ok {
			tb.Fatalf("bad string offset %d", off)
		}
		return string(b)
	}
	var out summary
	for _, sec := range e.Sections(ext.FuncInfos) {
		for _, fi := range sec.FuncInfos() {
			t, err := s.TypeByID(fi.TypeID)
			if err != nil || t.Kind() != btf.KindFunc {
				tb.Fatalf("%s: func_info type %d is %v", sec.Name, fi.TypeID, t)
			}
			out.Funcs = append(out.Funcs, sec.Name+" "+t.Name())
		}
	}
	for _, sec := range e.Sections(ext.LineInfos) {
		for _, li := range sec.LineInfos() {
			out.Lines = append(out.Lines, sec.Name+" "+str(li.FileNameOff)+" "+str(li.LineOff))
		}
	}
	for _, sec := range e.Sections(ext.CORERelos) {
		for _, r := range sec.CORERelos() {
			out.Relos = append(out.Relos, sec.Name+" "+r.Kind.String()+" "+str(r.AccessStrOff))
		}
	}
	return out
}

// TestParseObjects: the objects' .BTF.ext parse, every record's strings
// and types resolve, func_info names FUNCs, and the same data in the
// other byte order gives the same records.
func TestParseObjects(t *testing.T) {
	for _, rel := range objects {
		t.Run(rel, func(t *testing.T) {
			s, raw := sections(t, rel)
			e, err := ext.Parse(raw, s)
			if err != nil {
				t.Fatal(err)
			}
			if e.HeaderLen() != 32 || e.RecordSize(ext.CORERelos) != 16 {
				t.Errorf("header %d, core_relo record %d", e.HeaderLen(), e.RecordSize(ext.CORERelos))
			}
			want := summarize(t, e, s)
			if len(want.Funcs) == 0 || len(want.Lines) == 0 || len(want.Relos) == 0 {
				t.Fatalf("empty parts: %d funcs, %d lines, %d relocations", len(want.Funcs), len(want.Lines), len(want.Relos))
			}
			sw, err := ext.Parse(swap(t, raw), s)
			if err != nil {
				t.Fatal(err)
			}
			if !sw.Swapped() {
				t.Error("swapped data not reported")
			}
			if diff := cmp.Diff(want, summarize(t, sw, s)); diff != "" {
				t.Errorf("other byte order (-native +swapped):\n%s", diff)
			}
		})
	}
}

// swap converts .BTF.ext data to the other byte order: every field is a
// 32-bit word except the magic, version and flags.
func swap(tb testing.TB, raw []byte) []byte {
	tb.Helper()
	out := bytes.Clone(raw)
	out[0], out[1] = out[1], out[0]
	for i := 4; i+4 <= len(out); i += 4 {
		v := binary.LittleEndian.Uint32(out[i:])
		binary.BigEndian.PutUint32(out[i:], v)
	}
	return out
}

func TestParseErrors(t *testing.T) {
	s, raw := sections(t, "core/matches.bpf.o.gz")
	le := binary.LittleEndian
	edit := func(f func(b []byte)) []byte {
		b := bytes.Clone(raw)
		f(b)
		return b
	}
	funcOff := 32 + le.Uint32(raw[8:]) // the func_info part
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"short", raw[:6]},
		{"magic", edit(func(b []byte) { b[0] = 0 })},
		{"version", edit(func(b []byte) { b[2] = 2 })},
		{"flags", edit(func(b []byte) { b[3] = 1 })},
		{"header beyond data", edit(func(b []byte) { le.PutUint32(b[4:], 1<<20) })},
		{"header only", raw[:32]},
		{"short header", edit(func(b []byte) { le.PutUint32(b[4:], 16) })},
		{"part beyond data", edit(func(b []byte) { le.PutUint32(b[12:], 1<<30) })},
		{"unaligned part", edit(func(b []byte) { le.PutUint32(b[8:], 2) })},
		{"record size too small", edit(func(b []byte) { le.PutUint32(b[funcOff:], 4) })},
		{"record size unaligned", edit(func(b []byte) { le.PutUint32(b[funcOff:], 10) })},
		{"no records", edit(func(b []byte) { le.PutUint32(b[funcOff+8:], 0) })},
		{"too many records", edit(func(b []byte) { le.PutUint32(b[funcOff+8:], 1<<30) })},
		{"bad section name", edit(func(b []byte) { le.PutUint32(b[funcOff+4:], 1<<30) })},
		{"bad type id", edit(func(b []byte) { le.PutUint32(b[funcOff+16:], 1<<30) })},
	} {
		_, err := ext.Parse(tc.data, s)
		var fe *ext.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a *FormatError", tc.name, err)
		}
	}
	// Without the object's BTF only the layout is checked.
	if _, err := ext.Parse(edit(func(b []byte) { le.PutUint32(b[funcOff+16:], 1<<30) }), nil); err != nil {
		t.Errorf("layout only: %v", err)
	}
}

func TestKind(t *testing.T) {
	for k := ext.FieldByteOffset; k <= ext.TypeMatches; k++ {
		got, ok := ext.ParseKind(k.String())
		if !ok || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, ok)
		}
		n := 0
		for _, is := range []bool{k.IsField(), k.IsType(), k.IsEnumval()} {
			if is {
				n++
			}
		}
		if n != 1 || !k.Known() {
			t.Errorf("%v: in %d classes", k, n)
		}
	}
	if ext.Kind(13).Known() || ext.Kind(13).String() != "Kind(13)" {
		t.Errorf("Kind(13): %v", ext.Kind(13))
	}
}
