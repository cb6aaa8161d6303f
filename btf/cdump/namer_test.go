package cdump_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// memberType returns the type of member name of struct sname.
func memberType(t *testing.T, s *btf.Spec, sname, name string) btf.TypeID {
	t.Helper()
	st, err := s.FindOne(sname, btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range st.Members() {
		if m.Name() == name {
			return m.Type
		}
	}
	t.Fatalf("struct %s has no member %s", sname, name)
	return 0
}

func TestNamer(t *testing.T) {
	s := testfixtures.DebianSpec(t)
	n, err := cdump.NewNamer(s)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sname, member, name, decl string
	}{
		{"list_head", "next", "struct list_head *", "struct list_head *next"},
		{"task_struct", "comm", "char[16]", "char comm[16]"},
		{"callback_head", "func", "void (*)(struct callback_head *)", "void (*func)(struct callback_head *)"},
		{"hlist_node", "pprev", "struct hlist_node **", "struct hlist_node **pprev"},
		{"file_system_type", "name", "const char *", "const char *name"},
		{"qspinlock", "", "union {...}", "union {...}"},
		{"file_operations", "read", "ssize_t (*)(struct file *, char *, size_t, loff_t *)", "ssize_t (*read)(struct file *, char *, size_t, loff_t *)"},
	}
	for _, tc := range tests {
		id := memberType(t, s, tc.sname, tc.member)
		got, err := n.TypeName(id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.name, got); diff != "" {
			t.Errorf("TypeName(%s.%s) (-want +got):\n%s", tc.sname, tc.member, diff)
		}
		got, err = n.Decl(id, tc.member)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.decl, got); diff != "" {
			t.Errorf("Decl(%s.%s) (-want +got):\n%s", tc.sname, tc.member, diff)
		}
	}
	// Qualifiers, as the C header spells them.
	u64, err := s.FindOne("u64", btf.FindOptions{Kind: btf.KindTypedef})
	if err != nil {
		t.Fatal(err)
	}
	for id, typ := range s.All() {
		if typ.Kind() == btf.KindConst {
			if v, _ := s.TypeByID(typ.Ref()); v.Kind() == btf.KindVolatile && v.Ref() == u64.ID() {
				if got, _ := n.TypeName(id); got != "const volatile u64" {
					t.Errorf("TypeName(const volatile u64) = %q", got)
				}
			}
		}
	}
	if got, _ := cdump.TypeName(u64); got != "u64" {
		t.Errorf("TypeName(u64) = %q", got)
	}
}

// TestNamerHoldsNothingPerType: a Namer finds records through the Spec's
// own index, so that two of them beside two big Specs (btf diff) cost a
// few buffers, not the 8 bytes a type that an index of its own took; and
// it names what it finds as before, also on a lazy Spec.
func TestNamerHoldsNothingPerType(t *testing.T) {
	const n = 200_000
	raw, err := hostile.Build(hostile.Typedefs, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, lazy := range []bool{false, true} {
		s, err := btf.Parse(raw, btf.Options{Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		// A lazy Spec's own check of every record, once a Spec.
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		nm, err := cdump.NewNamer(s)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("lazy %v: NewNamer allocated %d bytes for %d types, want a few KB", lazy, got, n)
		}
		for _, id := range []btf.TypeID{1, 2, n / 2, n + 1} {
			got, err := nm.Decl(id, "x")
			want := "int x"
			if id > 1 {
				want = fmt.Sprintf("t%d x", id-2)
			}
			if err != nil || got != want {
				t.Errorf("lazy %v: [%d]: %q, %v; want %q", lazy, id, got, err, want)
			}
		}
		if _, err := nm.TypeName(n + 2); !errors.Is(err, btf.ErrNotFound) {
			t.Errorf("lazy %v: [%d]: %v, want %v", lazy, n+2, err, btf.ErrNotFound)
		}
		s.Close()
	}
}
