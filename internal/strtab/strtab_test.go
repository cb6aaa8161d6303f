package strtab

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// vmlinuxStrings returns the strings of the Debian 6.1 vmlinux BTF, in
// section order, without the empty ones.
func vmlinuxStrings(tb testing.TB) ([]byte, [][]byte) {
	tb.Helper()
	data, _ := testfixtures.DebianSpec(tb).StringSection()
	data = bytes.Clone(data)
	var names [][]byte
	for s := range bytes.SplitSeq(data, []byte{0}) {
		if len(s) > 0 {
			names = append(names, s)
		}
	}
	return data, names
}

// check adds names to a fresh Set and checks it against a map: equal
// strings get equal offsets, offsets follow the order of first addition,
// and Find finds every string at its offset.
func check[S Slot](t *testing.T, opts Options, names [][]byte) *Set[S] {
	t.Helper()
	s := NewSet[S](opts)
	want := map[string]uint32{}
	var data []byte
	for _, n := range names {
		off, ok := s.Add(n)
		if !ok {
			t.Fatalf("Add(%q) failed", n)
		}
		w, seen := want[string(n)]
		if !seen {
			w = uint32(len(data))
			want[string(n)] = w
			data = append(append(data, n...), 0)
		}
		if off != w {
			t.Fatalf("Add(%q) = %d, want %d", n, off, w)
		}
	}
	if !bytes.Equal(s.Data(), data) || s.Count() != len(want) {
		t.Fatalf("%d bytes, %d strings; want %d, %d", s.Len(), s.Count(), len(data), len(want))
	}
	for n, w := range want {
		if off, ok := s.Find([]byte(n)); !ok || off != w {
			t.Fatalf("Find(%q) = %d, %v; want %d", n, off, ok, w)
		}
	}
	return s
}

func TestSet(t *testing.T) {
	_, names := vmlinuxStrings(t)
	names = append(names[:20000:20000], names[:5000]...) // repeats
	for _, opts := range []Options{{}, {Dense: true}, {Mapped: true}, {Hint: 30000, Mapped: true, Dense: true}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			check[uint32](t, opts, names).Free()
			check[uint64](t, opts, names).Free()
		})
	}
}

// TestTruncate checks that strings added after a mark are forgotten,
// index and data, and that those before it are still found.
func TestTruncate(t *testing.T) {
	s := NewSet[uint64](Options{})
	var before []uint32
	for _, w := range []string{"a", "task_struct", "b"} {
		off, _ := s.Add([]byte(w))
		before = append(before, off)
	}
	mark := s.Len()
	for i := range 200 { // enough to grow the index past its first size
		s.Add([]byte{'x', byte(i), byte(i>>8) | 1})
	}
	s.Truncate(mark)
	if s.Len() != mark || s.Count() != 3 {
		t.Fatalf("after truncate: %d bytes, %d strings; want %d, 3", s.Len(), s.Count(), mark)
	}
	for i, w := range []string{"a", "task_struct", "b"} {
		if off, ok := s.Find([]byte(w)); !ok || off != before[i] {
			t.Errorf("Find(%q) = %d, %v; want %d", w, off, ok, before[i])
		}
	}
	if _, ok := s.Find([]byte{'x', 7, 1}); ok {
		t.Error("a string added after the mark is still found")
	}
	if off, _ := s.Add([]byte("c")); off != uint32(mark) {
		t.Errorf("next string at %d, want %d", off, mark)
	}
}

// lookup is a call of Add, Find or Intern and its results.
type lookup struct {
	s   string
	off uint32
	ok  bool
}

// checkCalls calls f on each case's string, in order.
func checkCalls(t *testing.T, name string, f func([]byte) (uint32, bool), cases []lookup) {
	t.Helper()
	for _, c := range cases {
		if off, ok := f([]byte(c.s)); off != c.off || ok != c.ok {
			t.Errorf("%s(%q) = %d, %v; want %d, %v", name, c.s, off, ok, c.off, c.ok)
		}
	}
}

func TestLimit(t *testing.T) {
	s := NewSet[uint32](Options{})
	s.SetLimit(4)
	checkCalls(t, "Add", s.Add, []lookup{{"abc", 0, true}, {"d", 4, true}, {"e", 0, false}, {"abc", 0, true}, {"d", 4, true}})
	if s.Len() != 6 {
		t.Errorf("%d bytes after a failed Add, want 6", s.Len())
	}
}

// TestTable checks interning on a base of two sections: base strings
// keep their lowest base offset, others go to the own section after it.
func TestTable(t *testing.T) {
	secs := [][]byte{[]byte("\x00int\x00long\x00int\x00"), []byte("char\x00long\x00")}
	base := NewBase[uint64](secs, Options{Dense: true})
	checkCalls(t, "base Find", base.Find, []lookup{{"int", 1, true}, {"long", 5, true}, {"char", 14, true}, {"nt", 0, false}, {"", 0, false}})
	tab := NewTable(base, 24, Options{})
	checkCalls(t, "Intern", tab.Intern, []lookup{{"", 0, true}, {"char", 14, true}, {"x", 24, true}, {"int", 1, true}, {"yy", 26, true}, {"x", 24, true}})
	if got := string(tab.Own.Data()); got != "x\x00yy\x00" {
		t.Errorf("own strings %q", got)
	}

	alone := NewTable[uint32](nil, 0, Options{})
	if key, _ := alone.Intern([]byte("a")); key != 1 || string(alone.Own.Data()) != "\x00a\x00" {
		t.Errorf("standalone: key %d, strings %q", key, alone.Own.Data())
	}
}

func TestOffMap(t *testing.T) {
	var m OffMap
	if _, ok := m.Get(5); ok {
		t.Fatal("empty map has a key")
	}
	m.Reserve(10)
	for k := uint32(1); k < 5000; k++ {
		m.Put(k*7, k)
	}
	for k := uint32(1); k < 5000; k++ {
		if v, ok := m.Get(k * 7); !ok || v != k {
			t.Fatalf("Get(%d) = %d, %v", k*7, v, ok)
		}
		if _, ok := m.Get(k*7 + 1); ok && (k*7+1)%7 != 0 {
			t.Fatalf("Get(%d) found a key never put", k*7+1)
		}
	}
}

// FuzzSet adds the NUL-separated strings of data, truncates at a mark
// and adds again, checking offsets and lookups against a map.
func FuzzSet(f *testing.F) {
	data, _ := vmlinuxStrings(f)
	for _, n := range []int{64, 512, 4096} {
		f.Add(data[1000:1000+n], uint16(n/3), false)
		f.Add(data[20000:20000+n], uint16(n/2), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, wide bool) {
		if wide {
			fuzzSet[uint64](t, data, int(cut))
		} else {
			fuzzSet[uint32](t, data, int(cut))
		}
	})
}

func fuzzSet[S Slot](t *testing.T, data []byte, cut int) {
	s := NewSet[S](Options{})
	s.AppendRaw([]byte{0})
	model := map[string]uint32{}
	add := func(n []byte) {
		off, ok := s.Add(n)
		if !ok {
			t.Fatalf("Add(%q) failed", n)
		}
		if w, seen := model[string(n)]; seen && w != off {
			t.Fatalf("Add(%q) = %d, earlier %d", n, off, w)
		} else if !seen {
			model[string(n)] = off
		}
		if got := s.Data()[off : off+uint32(len(n))]; !bytes.Equal(got, n) {
			t.Fatalf("Add(%q) = %d, which holds %q", n, off, got)
		}
	}
	names := bytes.Split(data, []byte{0})
	for _, n := range names {
		add(n)
	}
	mark := min(cut, s.Len())
	s.Truncate(mark)
	for n, off := range model {
		got, ok := s.Find([]byte(n))
		kept := int(off)+len(n) < mark
		if ok != kept || ok && got != off {
			t.Fatalf("after Truncate(%d): Find(%q) = %d, %v; was %d", mark, n, got, ok, off)
		}
		if !kept {
			delete(model, n)
		}
	}
	for _, n := range names {
		add(n)
	}
}

// TestSharedGrow adds strings to a Set given its data: the data is
// copied, not written, and an index rebuilt from its slots keeps each
// repeated string at its lowest offset.
func TestSharedGrow(t *testing.T) {
	sec := []byte("\x00int\x00long\x00int\x00")
	orig := bytes.Clone(sec)
	s := NewBase[uint64]([][]byte{sec[:len(sec):cap(sec)]}, Options{})
	for i := range 200 { // past the first index size
		if off, ok := s.Add([]byte{'x', byte(i), 1}); !ok || off != uint32(len(sec)+4*i) {
			t.Fatalf("Add #%d = %d, %v", i, off, ok)
		}
	}
	s.Truncate(len(sec) + 4*100)
	checkCalls(t, "Find", s.Find, []lookup{{"int", 1, true}, {"long", 5, true}, {"x\x63\x01", uint32(len(sec) + 4*99), true}, {"x\x64\x01", 0, false}})
	if !bytes.Equal(sec, orig) {
		t.Errorf("the given data changed: %q", sec)
	}
}

// TestChain reads strings across a base's section and a split section
// that starts where the base's strings end.
func TestChain(t *testing.T) {
	base := []byte("\x00int\x00long\x00")
	own := []byte("foo\x00bar")
	c := Chain{{Start: uint32(len(base)), Data: own}, {Start: 0, Data: base}}
	for _, tc := range []struct {
		off  uint32
		want string
		nil_ bool
	}{
		{0, "", true},
		{1, "int", false},
		{5, "long", false},
		{6, "ong", false},
		{10, "foo", false},
		{14, "bar", false},                 // the section's last string, without its NUL
		{17, "", true},                     // past the own section
		{uint32(len(base) - 1), "", false}, // the base's last NUL: an empty string
	} {
		got := c.String(tc.off)
		if string(got) != tc.want || (got == nil) != tc.nil_ {
			t.Errorf("String(%d) = %q (nil %v), want %q (nil %v)", tc.off, got, got == nil, tc.want, tc.nil_)
		}
	}
	if got := string(c.From(11)); got != "oo\x00bar" {
		t.Errorf("From(11) = %q", got)
	}
}
