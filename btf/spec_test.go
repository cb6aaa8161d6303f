package btf_test

import (
	"context"
	"errors"
	"maps"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec func(testing.TB) *btf.Spec
		n    int
	}{
		{"host", hostSpec, 126689},
		{"debian", debianSpec, 94975},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.spec(t)
			if s.NumTypes() != tc.n || s.LastID() != btf.TypeID(tc.n) || s.FirstID() != 1 {
				t.Fatalf("NumTypes %d FirstID %d LastID %d, want %d types from 1", s.NumTypes(), s.FirstID(), s.LastID(), tc.n)
			}
			n := 0
			for id, typ := range s.All() {
				n++
				if typ.ID() != id || id != btf.TypeID(n) {
					t.Fatalf("iteration yielded id %d (view %d) at position %d", id, typ.ID(), n)
				}
				got, err := s.TypeByID(id)
				if err != nil || got != typ {
					t.Fatalf("TypeByID(%d) = %v, %v; iteration gave %v", id, got, err, typ)
				}
			}
			if n != tc.n {
				t.Fatalf("iterated %d types, want %d", n, tc.n)
			}
		})
	}
}

func TestTypeByIDEdges(t *testing.T) {
	s := debianSpec(t)
	void, err := s.TypeByID(0)
	if err != nil || !void.IsVoid() || void.Kind() != btf.KindUnknown || void.Name() != "" {
		t.Fatalf("TypeByID(0) = %v, %v; want void", void, err)
	}
	if _, err := s.TypeByID(s.LastID() + 1); !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("TypeByID past the end: %v, want ErrNotFound", err)
	}
}

func TestFind(t *testing.T) {
	s := hostSpec(t)
	ts, err := s.Find("task_struct", btf.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// One STRUCT; the raw dump confirms which id bpftool gave it.
	if diff := cmp.Diff([]string{"STRUCT 'task_struct' [114]"}, names(ts)); diff != "" {
		t.Fatalf("Find(task_struct) (-want +got):\n%s", diff)
	}
	typ := ts[0]
	if typ.Size() != 3264 || typ.Vlen() != 248 || typ.Member(0).Name() != "thread_info" {
		t.Fatalf("task_struct: size %d vlen %d member0 %q", typ.Size(), typ.Vlen(), typ.Member(0).Name())
	}
	if _, err := s.Find("no_such_type_anywhere", btf.FindOptions{}); !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("missing name: %v, want ErrNotFound", err)
	}
	if _, err := s.Find("task_struct", btf.FindOptions{Kind: btf.KindUnion}); !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("wrong kind: %v, want ErrNotFound", err)
	}
	// A prefix of a name is not a match.
	if _, err := s.Find("task_str", btf.FindOptions{}); !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("prefix: %v, want ErrNotFound", err)
	}
	fwd, err := s.FindOne("crypto_no_such_thing", btf.FindOptions{Kind: btf.KindForward})
	if err != nil || !fwd.IsUnionForward() {
		t.Fatalf("FWD union: %v %v", fwd, err)
	}
}

// TestFindAgreesWithScan checks the string-offset search against a plain
// comparison of every name, for a sample of the names in the Debian BTF.
func TestFindAgreesWithScan(t *testing.T) {
	s := debianSpec(t)
	want := map[string][]btf.TypeID{}
	for id, typ := range s.All() {
		if n := typ.Name(); n != "" {
			want[n] = append(want[n], id)
		}
	}
	// In name order, so that every run checks the same names: every 199th
	// unique name and every 8th repeated one, 323 Finds (a Find
	// without a kind costs most of a millisecond).
	unique, repeated := 0, 0
	for _, name := range slices.Sorted(maps.Keys(want)) {
		ids := want[name]
		if len(ids) == 1 {
			if unique++; unique%199 != 0 {
				continue
			}
		} else if repeated++; repeated%8 != 0 {
			continue
		}
		ts, err := s.Find(name, btf.FindOptions{})
		if err != nil {
			t.Fatalf("Find(%q): %v", name, err)
		}
		var got []btf.TypeID
		for _, typ := range ts {
			got = append(got, typ.ID())
		}
		if diff := cmp.Diff(ids, got); diff != "" {
			t.Fatalf("Find(%q) ids (-want +got):\n%s", name, diff)
		}
	}
}

func TestFlavors(t *testing.T) {
	// cilium/ebpf returns [foo___b foo] for this set; every one must match.
	b := newRaw(0)
	b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	for _, n := range []string{"foo___a", "foo___b", "foo", "foo_bar", "bar___x___y", "___z"} {
		b.typ(n, btf.KindStruct, 0, false, 0)
	}
	s := mustParse(t, b.bytes(), nil)
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"foo", []string{"STRUCT 'foo___a' [2]", "STRUCT 'foo___b' [3]", "STRUCT 'foo' [4]"}},
		{"foo___c", []string{"STRUCT 'foo___a' [2]", "STRUCT 'foo___b' [3]", "STRUCT 'foo' [4]"}},
		{"bar___x___q", []string{"STRUCT 'bar___x___y' [6]"}},
		{"___z", []string{"STRUCT '___z' [7]"}},
	} {
		ts, err := s.Find(tc.name, btf.FindOptions{Flavors: true, Kind: btf.KindStruct})
		if err != nil {
			t.Fatalf("Find(%q): %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, names(ts)); diff != "" {
			t.Errorf("Find(%q, flavors) (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := s.FindOne("foo", btf.FindOptions{Flavors: true}); !errors.Is(err, btf.ErrMultipleMatches) {
		t.Fatalf("FindOne with three flavors: %v, want ErrMultipleMatches", err)
	}
	for in, want := range map[string]string{"foo___a": "foo", "foo": "foo", "___x": "___x", "a____b": "a____b", "a___b___c": "a___b", "x___": "x___"} {
		if got := btf.EssentialName(in); got != want {
			t.Errorf("EssentialName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveSizeAlign(t *testing.T) {
	s := hostSpec(t)
	find := func(name string, k btf.Kind) btf.Type {
		typ, err := s.FindOne(name, btf.FindOptions{Kind: k})
		if err != nil {
			t.Fatal(err)
		}
		return typ
	}
	u32 := find("u32", btf.KindTypedef)
	r, err := s.Resolve(u32.ID())
	if err != nil || r.Kind() != btf.KindInt || r.Name() != "unsigned int" {
		t.Fatalf("Resolve(u32) = %v, %v", r, err)
	}
	// Sizes and alignments as libbpf's btf__resolve_size and btf__align_of
	// report them for this BTF (libbpf 1.1, Debian's libbpf-dev).
	for _, tc := range []struct {
		name        string
		kind        btf.Kind
		size, align uint32
	}{
		{"task_struct", btf.KindStruct, 3264, 8},
		{"list_head", btf.KindStruct, 16, 8},
		{"sk_buff", btf.KindStruct, 224, 8},
		{"rq", btf.KindStruct, 3584, 8},
		{"atomic64_t", btf.KindTypedef, 8, 8},
	} {
		id := find(tc.name, tc.kind).ID()
		size, err := s.SizeOf(id)
		if err != nil || size != tc.size {
			t.Errorf("SizeOf(%s) = %d, %v; want %d", tc.name, size, err, tc.size)
		}
		align, err := s.AlignOf(id)
		if err != nil || align != tc.align {
			t.Errorf("AlignOf(%s) = %d, %v; want %d", tc.name, align, err, tc.align)
		}
	}
	// comm is char[16].
	tsk := find("task_struct", btf.KindStruct)
	for _, m := range tsk.Members() {
		if m.Name() == "comm" {
			if size, err := s.SizeOf(m.Type); err != nil || size != 16 {
				t.Errorf("SizeOf(comm) = %d, %v", size, err)
			}
		}
	}
	if s.PointerSize() != 8 {
		t.Errorf("PointerSize = %d", s.PointerSize())
	}
	protos, err := s.Find("", btf.FindOptions{Kind: btf.KindFuncProto})
	if err != nil || len(protos) < 1000 {
		t.Fatalf("Find(anonymous FUNC_PROTO) = %d types, %v", len(protos), err)
	}
	if _, err := s.SizeOf(protos[0].ID()); err == nil {
		t.Error("SizeOf(FUNC_PROTO) succeeded")
	}
}

func TestCyclicTypedefs(t *testing.T) {
	b := newRaw(0)
	b.typ("a", btf.KindTypedef, 0, false, 2)
	b.typ("b", btf.KindTypedef, 0, false, 1)
	s := mustParse(t, b.bytes(), nil)
	if _, err := s.Resolve(1); err == nil {
		t.Fatal("Resolve of a typedef cycle succeeded")
	}
	if _, err := s.SizeOf(1); err == nil {
		t.Fatal("SizeOf of a typedef cycle succeeded")
	}
	if _, err := s.AlignOf(1); err == nil {
		t.Fatal("AlignOf of a typedef cycle succeeded")
	}
}

func TestClose(t *testing.T) {
	if _, err := btf.Open(context.Background(), testfixtures.Path(t, "elf/af_key.ko.gz"), btf.Options{}); err == nil {
		t.Fatal("af_key.ko is split BTF; opening it without a base must fail")
	}
	s, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	typ, err := s.FindOne("task_struct", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		t.Fatal(err)
	}
	name := typ.Name()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if name != "task_struct" {
		t.Fatalf("name after Close = %q", name)
	}
	if typ.Name() != "" || typ.Kind() != btf.KindUnknown || typ.Vlen() != 0 || typ.Member(0) != (btf.Member{}) {
		t.Fatal("view after Close returned data")
	}
	if _, err := s.TypeByID(1); !errors.Is(err, btf.ErrClosed) {
		t.Fatalf("TypeByID after Close: %v", err)
	}
	if _, err := s.Find("task_struct", btf.FindOptions{}); !errors.Is(err, btf.ErrClosed) {
		t.Fatalf("Find after Close: %v", err)
	}
	for range s.All() {
		t.Fatal("All after Close yielded a type")
	}
}

// TestAlignOfBounded builds levels of structs with 8 members each, all of
// the next level's type: 8^levels paths. AlignOf visits each struct once, so
// 30 levels finish at once, and 40 exceed the depth limit with an error.
func TestAlignOfBounded(t *testing.T) {
	for _, tc := range []struct {
		levels int
		ok     bool
	}{{30, true}, {40, false}} {
		b := newRaw(0)
		b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
		for l := range tc.levels {
			next := uint32(l + 3) // the struct of the next level
			if l == tc.levels-1 {
				next = 1
			}
			var members []uint32
			for range 8 {
				members = append(members, 0, next, 0)
			}
			b.typ("", btf.KindStruct, 8, false, 4, members...)
		}
		s := mustParse(t, b.bytes(), nil)
		align, err := s.AlignOf(2)
		if tc.ok && (err != nil || align != 4) {
			t.Errorf("%d levels: AlignOf = %d, %v; want 4", tc.levels, align, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("%d levels: AlignOf succeeded past the depth limit", tc.levels)
		}
	}
}

// TestPointerSize follows libbpf: the first 4- or 8-byte INT named as a
// spelling of long decides; without one, the host's pointer size.
func TestPointerSize(t *testing.T) {
	for _, tc := range []struct {
		ints []string // INT names, each 4 bytes except "char"
		want uint32
	}{
		{[]string{"char", "int long"}, 4},
		{[]string{"long unsigned int", "long"}, 4},
		{[]string{"int"}, 8},
	} {
		b := newRaw(0)
		for _, n := range tc.ints {
			size := uint32(4)
			if n == "char" {
				size = 1
			}
			b.typ(n, btf.KindInt, 0, false, size, size*8)
		}
		if got := mustParse(t, b.bytes(), nil).PointerSize(); got != tc.want {
			t.Errorf("INTs %q: PointerSize = %d, want %d", tc.ints, got, tc.want)
		}
	}
}

// TestSplitWalkGroups walks runs of the smallest records in two halves,
// whose second half starts at each place within an index group, and
// checks that the index and the kind summary are those of one walk.
func TestSplitWalkGroups(t *testing.T) {
	for n := 1000; n < 1016; n++ {
		data, err := hostile.Build(hostile.Pointers, n)
		if err != nil {
			t.Fatal(err)
		}
		one, _, err := btf.ParseSplitWalk(data, nil, 1<<31)
		if err != nil {
			t.Fatal(err)
		}
		two, halved, err := btf.ParseSplitWalk(data, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !btf.SameIndex(one, two) || (!halved && runtime.GOMAXPROCS(0) > 1) {
			t.Errorf("%d pointers: halved %v, the index or the kind summary differs", n, halved)
		}
	}
}

// TestSplitWalk parses the fixtures with the type section walked in one
// piece and in two halves (see indexTypes), and checks that the Specs
// agree on every type, and that the halves were used where a second
// goroutine can run.
func TestSplitWalk(t *testing.T) {
	mods := testfixtures.Modules(t)
	names := []string{"host", "debian"}
	for _, name := range slices.Sorted(maps.Keys(mods)) {
		if len(names) < 40 {
			names = append(names, name)
		}
	}
	base := debianSpec(t)
	used := 0
	defer func() { t.Logf("the second half was used for %d of %d inputs", used, len(names)) }()
	for _, name := range names {
		data, b := mods[name], base
		switch name {
		case "host":
			data, b = testfixtures.Read(t, testfixtures.HostVmlinux), nil
		case "debian":
			data, b = testfixtures.Read(t, testfixtures.DebianVmlinux), nil
		}
		one, _, err := btf.ParseSplitWalk(data, b, 1<<31)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		two, halved, err := btf.ParseSplitWalk(data, b, 0)
		if err != nil {
			t.Fatalf("%s, in halves: %v", name, err)
		}
		if halved {
			used++
		} else if b == nil && runtime.GOMAXPROCS(0) > 1 {
			t.Errorf("%s: the second half was not used", name)
		}
		sameRecords(t, name+", in halves", one, two)
		if !btf.SameIndex(one, two) {
			t.Errorf("%s: the index or the kind summary differs in halves", name)
		}
		for _, k := range []btf.Kind{btf.KindStruct, btf.KindFunc, btf.KindTypedef} {
			a, _ := one.Find("task_struct", btf.FindOptions{Kind: k, Scope: btf.ScopeOwn})
			b, _ := two.Find("task_struct", btf.FindOptions{Kind: k, Scope: btf.ScopeOwn})
			if len(a) != len(b) {
				t.Errorf("%s: Find task_struct (%v): %d vs %d", name, k, len(a), len(b))
			}
		}
	}
}

// TestFindOneManyFlavors: FindOne on a name that 100,000 flavors share
// counts them in its error without holding them: no list of every
// match (1.6 MB and more here).
func TestFindOneManyFlavors(t *testing.T) {
	raw, err := hostile.BuildProbe(hostile.Flavors, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	s := mustParse(t, raw, nil)
	opts := btf.FindOptions{Flavors: true, Kind: btf.KindStruct}
	_, err = s.FindOne("task_struct", opts)
	if !errors.Is(err, btf.ErrMultipleMatches) || err.Error() != `btf: type "task_struct": 100001 types: multiple matches` {
		t.Fatalf("FindOne: %v, want 100001 types and ErrMultipleMatches", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.FindOne("task_struct", opts)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("FindOne: %d bytes allocated on 100,001 matches", n)
	}
	if _, err := s.FindOne("task_struct___7", btf.FindOptions{}); err != nil {
		t.Errorf("FindOne of one flavor: %v", err)
	}
	if _, err := s.FindOne("mm_struct", opts); !errors.Is(err, btf.ErrNotFound) || err.Error() != `btf: STRUCT "mm_struct": not found` {
		t.Errorf("FindOne of no type: %v", err)
	}
}
