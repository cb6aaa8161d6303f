package builder_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// allKinds builds one type of every kind with the Add methods, including a
// forward reference (a pointer to a struct added after it), and returns
// the Builder with the bpftool dump that its output must have.
func allKinds(tb testing.TB) (*builder.Builder, string) {
	tb.Helper()
	b := builder.New()
	must := func(id btf.TypeID, err error) btf.TypeID {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return id
	}
	i := must(b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}))
	p := must(b.AddPointer(b.NextID() + 1))
	node := must(b.AddStruct("node", 16, []builder.Member{
		{Name: "next", Type: p},
		{Name: "val", Type: i, BitOffset: 64},
		{Name: "flag", Type: i, BitOffset: 96, BitfieldSize: 1},
	}))
	must(b.AddUnion("u", 4, []builder.Member{{Name: "a", Type: i}, {Name: "b", Type: i}}))
	must(b.AddEnum("e", 4, true, []builder.Enumerator{{Name: "A", Value: ^uint64(0)}, {Name: "B", Value: 2}}))
	must(b.AddEnum64("e64", 8, false, []builder.Enumerator{{Name: "BIG", Value: ^uint64(0)}}))
	must(b.AddForward("fw", true))
	must(b.AddTypedef("node_t", node))
	v := must(b.AddVolatile(i))
	must(b.AddConst(v))
	must(b.AddRestrict(p))
	must(b.AddArray(btf.ArrayInfo{Type: i, Index: i, Nelems: 4}))
	proto := must(b.AddFuncProto(i, []builder.Param{{Name: "a", Type: i}, {}}))
	fn := must(b.AddFunc("f", proto, btf.LinkageGlobal))
	vr := must(b.AddVar("v", i, btf.LinkageGlobal))
	must(b.AddDatasec(".data", 4, []btf.VarSecinfo{{Type: vr, Offset: 0, Size: 4}}))
	must(b.AddFloat("float", 4))
	must(b.AddDeclTag("tag", fn, -1, false))
	tag := must(b.AddTypeTag("user", i, false))
	must(b.AddPointer(tag))
	return b, `[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
[2] PTR '(anon)' type_id=3
[3] STRUCT 'node' size=16 vlen=3
	'next' type_id=2 bits_offset=0
	'val' type_id=1 bits_offset=64
	'flag' type_id=1 bits_offset=96 bitfield_size=1
[4] UNION 'u' size=4 vlen=2
	'a' type_id=1 bits_offset=0
	'b' type_id=1 bits_offset=0
[5] ENUM 'e' encoding=SIGNED size=4 vlen=2
	'A' val=-1
	'B' val=2
[6] ENUM64 'e64' encoding=UNSIGNED size=8 vlen=1
	'BIG' val=18446744073709551615ULL
[7] FWD 'fw' fwd_kind=union
[8] TYPEDEF 'node_t' type_id=3
[9] VOLATILE '(anon)' type_id=1
[10] CONST '(anon)' type_id=9
[11] RESTRICT '(anon)' type_id=2
[12] ARRAY '(anon)' type_id=1 index_type_id=1 nr_elems=4
[13] FUNC_PROTO '(anon)' ret_type_id=1 vlen=2
	'a' type_id=1
	'(anon)' type_id=0
[14] FUNC 'f' type_id=13 linkage=global
[15] VAR 'v' type_id=1, linkage=global
[16] DATASEC '.data' size=4 vlen=1
	type_id=15 offset=0 size=4 (VAR 'v')
[17] FLOAT 'float' size=4
[18] DECL_TAG 'tag' type_id=14 component_idx=-1
[19] TYPE_TAG 'user' type_id=1
[20] PTR '(anon)' type_id=19
`
}

// TestAddAllKinds: every kind added by hand reads back as bpftool would
// print it; strings are stored once ("int" and "a" are used twice).
func TestAddAllKinds(t *testing.T) {
	b, want := allKinds(t)
	s := mustParse(t, marshal(t, b, builder.Options{}), nil)
	if diff := cmp.Diff(want, string(dump(t, s, btf.ScopeAll))); diff != "" {
		t.Fatalf("dump (-want +got):\n%s", diff)
	}
	strs, _ := s.StringSection()
	if n := strings.Count(string(strs), "\x00int\x00"); n != 1 {
		t.Errorf("\"int\" stored %d times", n)
	}
	if n := strings.Count(string(strs), "\x00a\x00"); n != 1 {
		t.Errorf("\"a\" stored %d times", n)
	}
}

func TestAddErrors(t *testing.T) {
	t.Run("dangling reference", func(t *testing.T) {
		b := builder.New()
		if _, err := b.AddPointer(5); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Marshal(builder.Options{}); err == nil {
			t.Fatal("Marshal accepted a pointer to a type that does not exist")
		}
	})
	t.Run("NUL in name", func(t *testing.T) {
		if _, err := builder.New().AddTypedef("a\x00b", 0); err == nil {
			t.Fatal("accepted a name with a NUL byte")
		}
	})
	t.Run("enum value too wide", func(t *testing.T) {
		if _, err := builder.New().AddEnum("e", 4, false, []builder.Enumerator{{Name: "X", Value: 1 << 40}}); err == nil {
			t.Fatal("ENUM accepted a 41-bit value")
		}
	})
	t.Run("too many members", func(t *testing.T) {
		if _, err := builder.New().AddStruct("s", 1, make([]builder.Member, 1<<16)); err == nil {
			t.Fatal("accepted 65536 members")
		}
	})
	t.Run("bitfield offset too large", func(t *testing.T) {
		ms := []builder.Member{{Name: "x", Type: 0, BitOffset: 1 << 24, BitfieldSize: 1}}
		if _, err := builder.New().AddStruct("s", 1, ms); err == nil {
			t.Fatal("accepted a bitfield offset beyond 24 bits")
		}
	})
	t.Run("closed base", func(t *testing.T) {
		base := mustParse(t, marshal(t, builder.New(), builder.Options{}), nil)
		base.Close()
		if _, err := builder.NewSplit(base); !errors.Is(err, btf.ErrClosed) {
			t.Fatalf("got %v, want ErrClosed", err)
		}
	})
}

// TestCopyTwice: copying a type again, alone or with others, adds nothing
// for what is already there and returns the same id.
func TestCopyTwice(t *testing.T) {
	s := hostSpec(t)
	task := findOne(t, s, "task_struct", btf.KindStruct)
	skb := findOne(t, s, "sk_buff", btf.KindStruct)
	b := builder.New()
	id1, err := b.Copy(task)
	if err != nil {
		t.Fatal(err)
	}
	n := b.NumTypes()
	id2, err := b.Copy(task)
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 || b.NumTypes() != n {
		t.Fatalf("second copy: id %d (first %d), %d types (first %d)", id2, id1, b.NumTypes(), n)
	}
	ids, err := b.CopyTypes([]btf.Type{skb, task, {}})
	if err != nil {
		t.Fatal(err)
	}
	if ids[1] != id1 || ids[2] != 0 {
		t.Fatalf("CopyTypes ids %v, want task_struct at %d and void 0", ids, id1)
	}
	// Copying everything now adds exactly the types not yet copied.
	if err := b.CopyAll(s); err != nil {
		t.Fatal(err)
	}
	if b.NumTypes() != s.NumTypes() {
		t.Fatalf("after CopyAll: %d types, want %d", b.NumTypes(), s.NumTypes())
	}
	out := mustParse(t, marshal(t, b, builder.Options{}), nil)
	got := findOne(t, out, "task_struct", btf.KindStruct)
	if got.ID() != id1 {
		t.Fatalf("task_struct at %d, want %d", got.ID(), id1)
	}
	sameGraph(t, s, task.ID(), out, id1, false)
	sameGraph(t, s, skb.ID(), out, ids[0], false)
}

// TestCopySharedBase: types of a shared base copied from two modules into
// one standalone Builder are copied once.
func TestCopySharedBase(t *testing.T) {
	a, k := module(t, "af_key"), module(t, "vsock_loopback")
	b := builder.New()
	if err := b.CopyAll(a); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyAll(k); err != nil {
		t.Fatal(err)
	}
	if want := a.LastID() + btf.TypeID(k.NumTypes()); b.LastID() != want {
		t.Fatalf("last id %d, want %d (base once, both modules' own types)", b.LastID(), want)
	}
	out := mustParse(t, marshal(t, b, builder.Options{}), nil)
	testfixtures.CompareLines(t, dump(t, out, btf.ScopeAll)[:len(dump(t, a, btf.ScopeAll))], dump(t, a, btf.ScopeAll))
}

// TestCopyIntoSplit: types of the base are referenced, not copied, when
// copying into a split Builder on the same base.
func TestCopyIntoSplit(t *testing.T) {
	base := debianSpec(t)
	mod := module(t, "xfs")
	b, err := builder.NewSplit(base)
	if err != nil {
		t.Fatal(err)
	}
	inode := findOne(t, mod, "xfs_inode", btf.KindStruct)
	id, err := b.Copy(inode)
	if err != nil {
		t.Fatal(err)
	}
	if b.NumTypes() > mod.NumTypes() {
		t.Fatalf("%d types copied, more than the module has", b.NumTypes())
	}
	baseInt := findOne(t, base, "int", btf.KindInt)
	if got, err := b.Copy(baseInt); err != nil || got != baseInt.ID() {
		t.Fatalf("Copy of a base type: %d, %v; want its base id %d", got, err, baseInt.ID())
	}
	out := mustParse(t, marshal(t, b, builder.Options{}), base)
	sameGraph(t, mod, inode.ID(), out, id, false)
}

func TestCopyClosed(t *testing.T) {
	s := mustParse(t, marshal(t, copyAll(t, module(t, "af_key"), false), builder.Options{}), nil)
	typ := findOne(t, s, "sadb_msg", btf.KindStruct)
	s.Close()
	if _, err := builder.New().Copy(typ); !errors.Is(err, btf.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
	if err := builder.New().CopyAll(s); !errors.Is(err, btf.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}

func findOne(tb testing.TB, s *btf.Spec, name string, k btf.Kind) btf.Type {
	tb.Helper()
	t, err := s.FindOne(name, btf.FindOptions{Kind: k})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// TestConcurrentBuilders: Builders share nothing, so several may copy from
// one Spec at once (run with -race) and give the same bytes.
func TestConcurrentBuilders(t *testing.T) {
	s := hostSpec(t)
	want := []builder.Want{{Name: "sk_buff"}}
	outs := make([][]byte, 4)
	done := make(chan int)
	for i := range outs {
		go func() {
			defer func() { done <- i }()
			m, err := builder.Minimal(s, want, builder.MinimalOptions{FwdPointees: i%2 == 0})
			if err != nil {
				t.Error(err)
				return
			}
			outs[i], _ = m.Marshal(builder.Options{})
		}()
	}
	for range outs {
		<-done
	}
	if !bytes.Equal(outs[0], outs[2]) || !bytes.Equal(outs[1], outs[3]) || bytes.Equal(outs[0], outs[1]) {
		t.Fatal("concurrent Minimal calls gave different outputs")
	}
}

// TestForget checks Records, Strings and Forget: ids and strings go on
// after the records are dropped, and the Builder no longer marshals.
func TestForget(t *testing.T) {
	b := builder.New()
	i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if types, first := b.Records(); first != 1 || len(types) != 16 {
		t.Fatalf("Records: %d bytes from [%d], want 16 from [1]", len(types), first)
	}
	b.Forget()
	p, _ := b.AddPointer(i)
	off, _ := b.AddString("int")
	types, first := b.Records()
	strs, start := b.Strings()
	if p != 2 || first != 2 || len(types) != 12 || off != 1 || start != 0 || string(strs) != "\x00int\x00" {
		t.Errorf("after Forget: PTR [%d], %d bytes from [%d], \"int\" at %d of %q from %d", p, len(types), first, off, strs, start)
	}
	if _, err := b.Marshal(builder.Options{}); !errors.Is(err, builder.ErrForgotten) {
		t.Errorf("Marshal after Forget: %v, want ErrForgotten", err)
	}
}
