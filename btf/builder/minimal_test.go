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
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

func minimal(tb testing.TB, s *btf.Spec, fwd bool, names ...string) *btf.Spec {
	tb.Helper()
	var want []builder.Want
	for _, n := range names {
		w, err := builder.ParseWant(n)
		if err != nil {
			tb.Fatal(err)
		}
		want = append(want, w)
	}
	b, err := builder.Minimal(s, want, builder.MinimalOptions{FwdPointees: fwd})
	if err != nil {
		tb.Fatal(err)
	}
	return mustParse(tb, marshal(tb, b, builder.Options{}), nil)
}

// reachable counts the types reachable from id in s, independently of the
// Builder's walk.
func reachable(s *btf.Spec, id btf.TypeID) int {
	seen := map[btf.TypeID]bool{}
	stack := []btf.TypeID{id}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == 0 || seen[id] {
			continue
		}
		seen[id] = true
		t, _ := s.TypeByID(id)
		stack = append(stack, t.Ref(), t.Array().Index)
		if t.Kind() == btf.KindArray {
			stack = append(stack, t.Array().Type)
		}
		for _, m := range t.Members() {
			stack = append(stack, m.Type)
		}
		for _, p := range t.Params() {
			stack = append(stack, p.Type)
		}
		for _, v := range t.VarSecinfos() {
			stack = append(stack, v.Type)
		}
	}
	return len(seen)
}

// TestMinimal: the output holds exactly the closure of the wanted types,
// numbered densely from 1, and each wanted type is a faithful copy.
func TestMinimal(t *testing.T) {
	for _, s := range []*btf.Spec{hostSpec(t), debianSpec(t)} {
		task := findOne(t, s, "task_struct", btf.KindStruct)
		m := minimal(t, s, false, "struct:task_struct")
		if want := reachable(s, task.ID()); m.NumTypes() != want {
			t.Fatalf("%d types, want the %d reachable from task_struct", m.NumTypes(), want)
		}
		got := findOne(t, m, "task_struct", btf.KindStruct)
		sameGraph(t, s, task.ID(), m, got.ID(), false)
		// Ids keep the source order. The named composites of the source,
		// by kind and name, in one pass (a Find each took half a second).
		type key struct {
			kind btf.Kind
			name string
		}
		srcID := map[key]btf.TypeID{}
		for id, typ := range s.All() {
			if typ.IsComposite() && typ.Name() != "" {
				k := key{typ.Kind(), typ.Name()}
				if _, dup := srcID[k]; dup {
					srcID[k] = 0 // not unique: not expected in the output
				} else {
					srcID[k] = id
				}
			}
		}
		prev := btf.TypeID(0)
		for _, typ := range m.All() {
			if typ.IsComposite() && typ.Name() != "" {
				src := srcID[key{typ.Kind(), typ.Name()}]
				if src == 0 {
					t.Fatalf("%v: no single source type of that kind and name", typ)
				}
				if src < prev {
					t.Fatalf("%v out of source order", typ)
				}
				prev = src
			}
		}
	}
}

// TestMinimalFwdPointees: structs reached only through pointers become
// FWDs; the output is much smaller and still a faithful copy otherwise.
func TestMinimalFwdPointees(t *testing.T) {
	s := hostSpec(t)
	full := minimal(t, s, false, "task_struct", "sk_buff")
	small := minimal(t, s, true, "task_struct", "sk_buff")
	if small.NumTypes()*4 > full.NumTypes() {
		t.Errorf("fwd-pointees output has %d types, whole has %d", small.NumTypes(), full.NumTypes())
	}
	for _, name := range []string{"task_struct", "sk_buff"} {
		sameGraph(t, s, findOne(t, s, name, btf.KindStruct).ID(), small, findOne(t, small, name, btf.KindStruct).ID(), true)
	}
	// task_struct has "struct mm_struct *mm": mm_struct is a FWD.
	mm := findOne(t, small, "mm_struct", btf.KindUnknown)
	if mm.Kind() != btf.KindForward || mm.IsUnionForward() {
		t.Errorf("mm_struct is %v, want a struct FWD", mm)
	}
	// Embedded by value in task_struct: kept whole.
	findOne(t, small, "sched_entity", btf.KindStruct)
	for _, typ := range small.All() {
		if typ.Kind() == btf.KindForward && typ.Name() == "" {
			t.Fatalf("anonymous FWD %v", typ)
		}
	}
}

// TestMinimalSplit: minimal BTF of module types is standalone.
func TestMinimalSplit(t *testing.T) {
	mod := module(t, "xfs")
	m := minimal(t, mod, false, "xfs_inode")
	if m.FirstID() != 1 || m.Base() != nil {
		t.Fatalf("output starts at id %d", m.FirstID())
	}
	sameGraph(t, mod, findOne(t, mod, "xfs_inode", btf.KindStruct).ID(), m, findOne(t, m, "xfs_inode", btf.KindStruct).ID(), false)
}

func TestMinimalErrors(t *testing.T) {
	s := hostSpec(t)
	_, err := builder.Minimal(s, []builder.Want{{Name: "no_such_type_anywhere"}}, builder.MinimalOptions{})
	if !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	_, err = builder.Minimal(s, []builder.Want{{Name: "task_struct", Kind: btf.KindUnion}}, builder.MinimalOptions{})
	if !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("union task_struct: got %v, want ErrNotFound", err)
	}
}

func TestParseWant(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want builder.Want
		err  bool
	}{
		{in: "task_struct", want: builder.Want{Name: "task_struct"}},
		{in: "struct:task_struct", want: builder.Want{Name: "task_struct", Kind: btf.KindStruct}},
		{in: "typedef u32", want: builder.Want{Name: "u32", Kind: btf.KindTypedef}},
		{in: " FUNC : do_exit ", want: builder.Want{Name: "do_exit", Kind: btf.KindFunc}},
		{in: "", err: true},
		{in: "bogus:x", err: true},
		{in: "struct:", err: true},
	} {
		got, err := builder.ParseWant(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseWant(%q): error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" && !tc.err {
			t.Errorf("ParseWant(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// checkWriteMinimal checks that WriteMinimal and WriteMinimalELF write
// what Minimal and then Marshal or MarshalELF return, in every output
// form, for want with and without FwdPointees.
func checkWriteMinimal(t *testing.T, s *btf.Spec, want []builder.Want) {
	t.Helper()
	for _, fwd := range []bool{false, true} {
		mopts := builder.MinimalOptions{FwdPointees: fwd}
		b, err := builder.Minimal(s, want, mopts)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range writeOptions {
			var raw, obj bytes.Buffer
			if err := builder.WriteMinimal(&raw, s, want, mopts, opts); err != nil {
				t.Fatal(err)
			}
			if want := marshal(t, b, opts); !bytes.Equal(raw.Bytes(), want) {
				t.Errorf("fwd %v, %+v: WriteMinimal wrote %d bytes unlike Marshal's %d", fwd, opts, raw.Len(), len(want))
			}
			if err := builder.WriteMinimalELF(&obj, s, want, mopts, opts); err != nil {
				t.Fatal(err)
			}
			elf, err := b.MarshalELF(opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(obj.Bytes(), elf) {
				t.Errorf("fwd %v, %+v: WriteMinimalELF wrote %d bytes unlike MarshalELF's %d", fwd, opts, obj.Len(), len(elf))
			}
		}
	}
}

// TestWriteMinimal: minimal BTF written straight to a writer is Minimal's,
// byte for byte, held or streamed (which WriteMinimal chooses by the
// closure's size: TestWriteMinimalStreamed), on whole kernels (in memory
// and mapped from a file, whose pages the stream evicts as it goes), on a
// module over its base, for one name, for several of different kinds,
// and for a name that many types share.
func TestWriteMinimal(t *testing.T) {
	checkWriteMinimals(t)
}

// TestWriteMinimalStreamed is TestWriteMinimal with every closure
// streamed, however small. It does not run in parallel: it sets
// WriteMinimal's threshold for the package.
func TestWriteMinimalStreamed(t *testing.T) {
	builder.StreamMinimal(t)
	checkWriteMinimals(t)
}

func checkWriteMinimals(t *testing.T) {
	wants := [][]builder.Want{
		{{Name: "task_struct"}},
		{{Name: "task_struct"}, {Name: "sk_buff", Kind: btf.KindStruct}, {Name: "schedule", Kind: btf.KindFunc}, {Name: "u32"}},
	}
	for _, s := range []*btf.Spec{debianSpec(t), hostSpec(t)} {
		for _, want := range wants {
			checkWriteMinimal(t, s, want)
		}
	}
	t.Run("mapped", func(t *testing.T) { checkWriteMinimal(t, mappedDebian(t), wants[1]) })
	t.Run("xfs", func(t *testing.T) {
		checkWriteMinimal(t, module(t, "xfs"), []builder.Want{{Name: "xfs_inode"}, {Name: "xfs_mount"}})
	})
	t.Run("shared-name", func(t *testing.T) {
		raw, err := hostile.BuildProbe(hostile.SharedName, 1000)
		if err != nil {
			t.Fatal(err)
		}
		checkWriteMinimal(t, mustParse(t, raw, nil), []builder.Want{{Name: "x"}})
	})
}

// TestWriteMinimalErrors: a name that matches nothing (also beside names
// that match) and a closed Spec are refused before anything is written,
// and a failed write is returned as it is, wherever it fails.
func TestWriteMinimalErrors(t *testing.T) {
	s := debianSpec(t)
	var out bytes.Buffer
	want := []builder.Want{{Name: "task_struct"}, {Name: "no_such_type_anywhere"}}
	err := builder.WriteMinimal(&out, s, want, builder.MinimalOptions{}, builder.Options{})
	if !errors.Is(err, btf.ErrNotFound) || !strings.Contains(err.Error(), "no_such_type_anywhere") || out.Len() != 0 {
		t.Errorf("missing name: %v, %d bytes written", err, out.Len())
	}
	closed := mustParse(t, testfixtures.Read(t, testfixtures.DebianVmlinux), nil)
	closed.Close()
	if err := builder.WriteMinimalELF(&out, closed, want[:1], builder.MinimalOptions{}, builder.Options{}); !errors.Is(err, btf.ErrClosed) || out.Len() != 0 {
		t.Errorf("closed Spec: %v, %d bytes written", err, out.Len())
	}
	for _, n := range []int{0, 100, 64 << 10} {
		if err := builder.WriteMinimal(&failWriter{n: n}, s, want[:1], builder.MinimalOptions{}, builder.Options{}); !errors.Is(err, errWrite) {
			t.Errorf("write failing after %d bytes: %v", n, err)
		}
		if err := builder.WriteMinimalELF(&failWriter{n: n}, s, want[:1], builder.MinimalOptions{}, builder.Options{}); !errors.Is(err, errWrite) {
			t.Errorf("ELF write failing after %d bytes: %v", n, err)
		}
	}
}
