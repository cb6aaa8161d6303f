package wire

import (
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// rec builds a record from its words.
func rec(words ...uint32) Record {
	var b []byte
	for _, w := range words {
		b = AppendWord(b, w)
	}
	return b
}

func TestRecordFixed(t *testing.T) {
	r := Record(AppendFixed(nil, 7, Info(KindStruct, 2, true), 40))
	got := []any{r.NameOff(), r.Kind(), r.Vlen(), r.KindFlag(), r.SizeType()}
	want := []any{uint32(7), KindStruct, 2, true, uint32(40)}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	if InfoWord(append([]byte{1, 2, 3, 4}, r...), 4) != r.Info() {
		t.Error("InfoWord does not read the info word at the record's offset")
	}
}

// TestRecordElements reads one record of each kind with elements, laid out
// as btf.rst describes them, through the accessors.
func TestRecordElements(t *testing.T) {
	type got struct{ A, B, C uint64 }
	tests := []struct {
		name string
		r    Record
		read func(Record) got
		want got
	}{
		{"member", rec(1, Info(KindStruct, 2, true), 8, 2, 3, 4, 5, 6, MemberOffsetWord(3, 33)),
			func(r Record) got { n, ty, o := r.Member(1); return got{uint64(n), uint64(ty), uint64(o)} },
			got{5, 6, 3<<24 | 33}},
		{"param", rec(0, Info(KindFuncProto, 2, false), 1, 2, 3, 4, 5),
			func(r Record) got { n, ty := r.Param(1); return got{uint64(n), uint64(ty), 0} },
			got{4, 5, 0}},
		{"enum", rec(1, Info(KindEnum, 2, false), 4, 2, 0xfffffffe, 3, 9),
			func(r Record) got { n, v := r.Enum(0); return got{uint64(n), v, 0} },
			got{2, 0xfffffffe, 0}},
		{"enum64", rec(1, Info(KindEnum64, 2, false), 8, 2, 1, 2, 3, 4, 5),
			func(r Record) got { n, v := r.Enum(1); return got{uint64(n), v, 0} },
			got{3, 5<<32 | 4, 0}},
		{"secinfo", rec(1, Info(KindDatasec, 1, false), 8, 4, 16, 8),
			func(r Record) got { ty, o, s := r.Secinfo(0); return got{uint64(ty), uint64(o), uint64(s)} },
			got{4, 16, 8}},
		{"array", rec(0, Info(KindArray, 0, false), 0, 5, 6, 7),
			func(r Record) got { ty, i, n := r.Array(); return got{uint64(ty), uint64(i), uint64(n)} },
			got{5, 6, 7}},
		{"extra", rec(1, Info(KindInt, 0, false), 4, IntWord(IntSigned, 0, 32)),
			func(r Record) got { return got{uint64(r.Extra()), 0, 0} },
			got{uint64(IntWord(IntSigned, 0, 32)), 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if size, ok := DefaultLayouts.RecordSize(tt.r.Info()); !ok || size != uint32(len(tt.r)) {
				t.Fatalf("test record of %d bytes, layout says %d", len(tt.r), size)
			}
			if d := cmp.Diff(tt.want, tt.read(tt.r)); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestWords(t *testing.T) {
	buf := make([]uint32, 4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 16)
	PutWord(b, 4, 0x12345678)
	w, ok := Words(b)
	if !ok || len(w) != 4 || w[1] != 0x12345678 {
		t.Fatalf("Words = %x, %v; want 4 words, the second 0x12345678", w, ok)
	}
	w[2] = 7 // shares b's memory
	if Word(b, 8) != 7 {
		t.Errorf("Words copied its input")
	}
	for _, bad := range [][]byte{nil, b[:6], b[1:13]} {
		if w, ok := Words(bad); ok {
			t.Errorf("Words(%d bytes at +%d) = %v, true; want false", len(bad), len(b)-cap(bad), w)
		}
	}
}
