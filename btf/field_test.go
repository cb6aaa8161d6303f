package btf_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
)

// TestFieldErrors: every way a path can be wrong gives an error that names
// the step, wrapping ErrNotFound where a name does not exist.
func TestFieldErrors(t *testing.T) {
	spec := debianSpec(t)
	for _, tc := range []struct {
		path, want string
		notFound   bool
	}{
		{"no_such_struct.x", `no struct or union named "no_such_struct"`, true},
		{"task_struct.no_such_member", `no member "no_such_member"`, true},
		{"task_struct.mm.mmap_base", "is not a struct or union", false}, // through a pointer
		{"sk_buff.cb[48]", "past the 48 elements", false},
		{"sk_buff.len[1]", "is not an array", false},
		{"sk_buff.cb[x]", "not a number", false},
		{"sk_buff.cb[1", "unclosed [", false},
		{"sk_buff.", "ends with a dot", false},
		{".pid", "no type name", false},
		{"sk_buff..len", "empty member name", false},
		{"sk_buff.pkt_type.x", "bitfield", false},
		{"sk_buff" + strings.Repeat(".len", 70), "more than 64 steps", false},
	} {
		_, err := spec.Field(tc.path)
		fuzztest.CheckError(t, "btf", err)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Field(%q) = %v, want an error with %q", tc.path, err, tc.want)
			continue
		}
		if errors.Is(err, btf.ErrNotFound) != tc.notFound {
			t.Errorf("Field(%q): errors.Is(ErrNotFound) = %v, want %v", tc.path, !tc.notFound, tc.notFound)
		}
	}
}

// TestFieldTypedefAndEmptyPath: a typedef of a struct starts a path too,
// and the empty rest of a path is the type itself.
func TestFieldTypedefAndEmptyPath(t *testing.T) {
	spec := debianSpec(t)
	f, err := spec.Field("atomic_t.counter") // typedef struct { int counter; } atomic_t
	if err != nil {
		t.Fatal(err)
	}
	if f.Offset() != 0 || f.Size != 4 || f.Type.Kind() != btf.KindInt {
		t.Errorf("atomic_t.counter = %+v", f)
	}
	f, err = spec.Field("sk_buff")
	if err != nil || f.Offset() != 0 || f.Size == 0 {
		t.Errorf("sk_buff = %+v, %v", f, err)
	}
}

// TestFieldCycle: an anonymous struct that embeds itself (corrupt BTF that
// parsing accepts) ends the search at once instead of recursing.
func TestFieldCycle(t *testing.T) {
	b := newRaw(0)
	b.typ("int", btf.KindInt, 0, false, 4, 32)
	// [2] anonymous struct { int a; <anon> [2] x2; }
	b.typ("", btf.KindStruct, 3, false, 8, b.str("a"), 1, 0, 0, 2, 32, 0, 2, 64)
	b.typ("outer", btf.KindStruct, 1, false, 8, 0, 2, 0)
	spec := mustParse(t, b.bytes(), nil)
	if f, err := spec.Field("outer.a"); err != nil || f.Offset() != 0 {
		t.Errorf("outer.a = %+v, %v", f, err)
	}
	if _, err := spec.Field("outer.missing"); !errors.Is(err, btf.ErrNotFound) {
		t.Errorf("outer.missing: %v, want ErrNotFound", err)
	}
}
