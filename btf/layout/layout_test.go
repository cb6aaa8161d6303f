package layout_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestPaholeGolden compares the whole layout of the Debian 6.1 vmlinux BTF
// with pahole 1.24's output for it (testdata/pahole, see its README).
func TestPaholeGolden(t *testing.T) {
	s := testfixtures.DebianSpec(t)
	want := testfixtures.Read(t, "pahole/debian-6.1.layout.txt.gz")
	var got bytes.Buffer
	if err := layout.Write(context.Background(), &got, s, layout.Options{}); err != nil {
		t.Fatal(err)
	}
	compareLines(t, want, got.Bytes())
	if n := len(regexp.MustCompile(`(?m)^(struct|union) `).FindAll(want, -1)); n != 7466 {
		t.Errorf("golden has %d types, want 7466", n)
	}
}

// compareLines reports the first differing line of two outputs.
func compareLines(t *testing.T, want, got []byte) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			t.Fatalf("line %d differs:\nwant %q\ngot  %q", i+1, wl[i], gl[i])
		}
	}
	t.Fatalf("outputs differ in length: want %d lines, got %d", len(wl), len(gl))
}

// TestNamesMatchPahole compares "layout NAME" with "pahole -C NAME" for a
// few types, where pahole is installed.
func TestNamesMatchPahole(t *testing.T) {
	if _, err := exec.LookPath("pahole"); err != nil {
		t.Skip("pahole not installed")
	}
	s := testfixtures.DebianSpec(t)
	file := t.TempDir() + "/vmlinux.btf"
	if err := os.WriteFile(file, testfixtures.Read(t, testfixtures.DebianVmlinux), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"task_struct", "sk_buff", "page", "bpf_attr", "qspinlock", "sock"} {
		t.Run(name, func(t *testing.T) {
			want, err := exec.Command("pahole", "-F", "btf", "-C", name, file).Output()
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := layout.Write(context.Background(), &got, s, layout.Options{Names: []string{name}}); err != nil {
				t.Fatal(err)
			}
			compareLines(t, want, got.Bytes())
		})
	}
}

func TestUnknownName(t *testing.T) {
	s := testfixtures.DebianSpec(t)
	var got bytes.Buffer
	err := layout.Write(context.Background(), &got, s, layout.Options{Names: []string{"no_such_struct"}})
	if !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if got.Len() != 0 {
		t.Errorf("wrote %d bytes before failing", got.Len())
	}
}

func BenchmarkWriteDebian(b *testing.B) {
	s := testfixtures.DebianSpec(b)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := layout.Write(context.Background(), &buf, s, layout.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHostAgainstSizeOf checks the layout of every struct of the host 6.18
// BTF, which pahole 1.24 cannot read, against the btf package's own
// SizeOf and AlignOf: member sizes, offsets, holes and padding.
func TestHostAgainstSizeOf(t *testing.T) {
	s := testfixtures.HostSpec(t)
	structs, err := layout.Layouts(context.Background(), s, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(structs) < 9000 {
		t.Fatalf("%d layouts, want more than 9000", len(structs))
	}
	checked := 0
	for _, st := range structs {
		size, err := s.SizeOf(st.ID)
		if err != nil || size != st.Size {
			t.Fatalf("%s %s: size %d, SizeOf %d (%v)", st.Kind, st.Name, st.Size, size, err)
		}
		if st.Kind != "struct" {
			continue
		}
		checked++
		checkMembers(t, s, st)
	}
	t.Logf("%d structs checked", checked)
}

func checkMembers(t *testing.T, s *btf.Spec, st layout.Struct) {
	t.Helper()
	typ, _ := s.TypeByID(st.ID)
	// libbpf's alignment is 1 for a struct whose members are not all
	// naturally aligned (packed, or with aligned(4) u64s as in compat
	// structs); pahole's inference of packing differs, so use AlignOf's.
	sa, _ := s.AlignOf(st.ID)
	var end uint32 // end of the previous member, in bytes
	bitfields := false
	for i, m := range st.Members {
		bm := typ.Member(i)
		if m.BitfieldSize != 0 || bm.BitfieldSize != 0 {
			bitfields = true
			continue
		}
		if m.Offset != bm.BitOffset/8 {
			t.Fatalf("%s.%s: offset %d, BTF says %d", st.Name, m.Name, m.Offset, bm.BitOffset/8)
		}
		if size, err := s.SizeOf(m.TypeID); err == nil && uint64(size) != m.Size {
			t.Fatalf("%s.%s: size %d, SizeOf %d", st.Name, m.Name, m.Size, size)
		}
		if a, err := s.AlignOf(m.TypeID); err == nil && a > 0 && sa > 1 && m.Offset%a != 0 {
			t.Fatalf("%s.%s: offset %d not aligned to %d in an unpacked struct", st.Name, m.Name, m.Offset, a)
		}
		if i > 0 && !bitfields {
			prev := st.Members[i-1]
			if m.Offset >= end && uint32(prev.Hole) != m.Offset-end {
				t.Fatalf("%s.%s: hole %d before it, offsets say %d", st.Name, prev.Name, prev.Hole, m.Offset-end)
			}
		}
		end = max(end, m.Offset+uint32(m.Size))
	}
	if !bitfields && len(st.Members) > 0 && end <= st.Size && st.Padding != st.Size-end {
		t.Fatalf("%s: padding %d, offsets say %d", st.Name, st.Padding, st.Size-end)
	}
	if !bitfields && st.SumMembers+st.SumHoles+st.Padding != st.Size && end <= st.Size {
		t.Fatalf("%s: members %d + holes %d + padding %d != size %d", st.Name, st.SumMembers, st.SumHoles, st.Padding, st.Size)
	}
}
