package diff_test

import (
	"bufio"
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestSameIsEmpty(t *testing.T) {
	s := testfixtures.DebianSpec(t)
	got, err := diff.Compare(context.Background(), s, s, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("%d changes between a BTF and itself, first %+v", len(got), got[0])
	}
}

// rawTypeLine parses the line of a type in bpftool's raw dump,
// "[12] STRUCT 'list_head' size=16 vlen=2", into its kind and name; ok is
// false for other lines (members, enumerators, parameters).
func rawTypeLine(line string) (kind, name string, ok bool) {
	id, rest, ok := strings.Cut(line, "] ")
	if !ok || len(id) < 2 || id[0] != '[' || strings.Trim(id[1:], "0123456789") != "" {
		return "", "", false
	}
	kind, rest, ok = strings.Cut(rest, " '")
	if !ok || kind == "" || strings.Trim(kind, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") != "" {
		return "", "", false
	}
	name, _, ok = strings.Cut(rest, "'")
	return kind, name, ok && name != ""
}

// namedSet parses a bpftool raw dump into the set of "KIND name" of its
// named types, independently of kmeta's reader.
func namedSet(t *testing.T, rel string) map[string]bool {
	t.Helper()
	set := make(map[string]bool)
	sc := bufio.NewScanner(bytes.NewReader(testfixtures.Read(t, rel)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if kind, name, ok := rawTypeLine(sc.Text()); ok && name != "(anon)" {
			set[kind+" "+name] = true
		}
	}
	return set
}

// TestDebianToHost compares Debian 6.1 with the host 6.18: the added and
// removed types must be those that bpftool's raw dumps of the two show.
func TestDebianToHost(t *testing.T) {
	oldSet := namedSet(t, "bpftool/debian-6.1.raw.txt.gz")
	newSet := namedSet(t, "bpftool/host-6.18.44.raw.txt.gz")
	want := map[string]bool{}
	for k := range oldSet {
		if !newSet[k] {
			want["removed "+k] = true
		}
	}
	for k := range newSet {
		if !oldSet[k] {
			want["added "+k] = true
		}
	}
	oldSpec, newSpec := testfixtures.DebianSpec(t), testfixtures.HostSpec(t)
	changes, err := diff.Compare(context.Background(), oldSpec, newSpec, diff.Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	changed := map[string]bool{}
	for _, c := range changes {
		k := c.Change + " " + btfKind(c.Kind) + " " + c.Name
		if c.Change == diff.Changed {
			changed[c.Kind+" "+c.Name] = true
			continue
		}
		got[k] = true
	}
	// cmp.Diff sorts the keys of maps even when they are equal: a third
	// of the test's CPU.
	if !maps.Equal(want, got) {
		t.Fatalf("added and removed types differ from the raw dumps' (-want +got):\n%s", cmp.Diff(want, got, cmpopts.IgnoreUnexported(diff.Change{})))
	}
	t.Logf("%d added or removed, %d changed", len(got), len(changed))
	checkStructsReported(t, oldSpec, newSpec, changed)
}

// btfKind is bpftool's spelling of a Change's kind.
func btfKind(k string) string {
	kind, ok := btf.ParseKind(k)
	if !ok {
		return "?" + k
	}
	return kind.String()
}

// checkStructsReported checks that every struct present once on each side
// whose size or member offsets differ is reported as changed.
func checkStructsReported(t *testing.T, a, b *btf.Spec, changed map[string]bool) {
	t.Helper()
	structs := func(s *btf.Spec) map[string][]btf.Type {
		m := make(map[string][]btf.Type)
		for _, typ := range s.All() {
			if typ.Kind() == btf.KindStruct && typ.NameOffset() != 0 {
				m[typ.Name()] = append(m[typ.Name()], typ)
			}
		}
		return m
	}
	as, bs := structs(a), structs(b)
	n := 0
	for name, ta := range as {
		tb := bs[name]
		if len(ta) != 1 || len(tb) != 1 || sameOffsets(ta[0], tb[0]) {
			continue
		}
		n++
		if !changed["struct "+name] {
			t.Errorf("struct %s: size or member offsets differ, not reported", name)
		}
	}
	t.Logf("%d structs with a different size or member offsets", n)
}

func sameOffsets(x, y btf.Type) bool {
	if x.Size() != y.Size() || x.Vlen() != y.Vlen() {
		return false
	}
	for i := range x.Vlen() {
		if x.Member(i).BitOffset != y.Member(i).BitOffset {
			return false
		}
	}
	return true
}

func TestTypesRestriction(t *testing.T) {
	oldSpec, newSpec := testfixtures.DebianSpec(t), testfixtures.HostSpec(t)
	changes, err := diff.Compare(context.Background(), oldSpec, newSpec, diff.Options{Types: []string{"list_head", "callback_head"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 0 {
		t.Errorf("list_head and callback_head: %d changes, want none: %+v", len(changes), changes)
	}
	changes, err = diff.Compare(context.Background(), oldSpec, newSpec, diff.Options{Types: []string{"sk_buff"}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range changes {
		found = found || (c.Kind == "struct" && c.Name == "sk_buff" && c.Change == diff.Changed)
	}
	if !found {
		t.Errorf("--types sk_buff: struct sk_buff not reported as changed")
	}
	// The named type comes first; the thousands of types it reaches
	// follow, marked.
	if len(changes) < 100 || changes[0].Name != "sk_buff" || changes[0].Reached {
		t.Errorf("--types sk_buff: %d changes, the first %+v; want sk_buff first, unmarked", len(changes), changes[0])
	}
	for i, c := range changes[1:] {
		if !c.Reached || c.Name == "sk_buff" {
			t.Errorf("change %d, %s %s: Reached = %v", i+1, c.Kind, c.Name, c.Reached)
			break
		}
	}
	if _, err := diff.Compare(context.Background(), oldSpec, newSpec, diff.Options{Types: []string{"no_such_type"}}); err == nil {
		t.Error("unknown type name: no error")
	}
}

func BenchmarkCompareDebianHost(b *testing.B) {
	oldSpec, newSpec := testfixtures.DebianSpec(b), testfixtures.HostSpec(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := diff.Compare(context.Background(), oldSpec, newSpec, diff.Options{Workers: 4}); err != nil {
			b.Fatal(err)
		}
	}
}

// funcsBTF returns a BTF with a function called name for each of params'
// parameter types (int or long), as static functions of the same name
// from different files are.
func funcsBTF(t *testing.T, name string, params ...string) *btf.Spec {
	t.Helper()
	b := builder.New()
	ints := map[string]btf.TypeID{}
	for n, size := range map[string]uint8{"int": 4, "long": 8} {
		id, err := b.AddInt(n, uint32(size), btf.IntInfo{Encoding: btf.IntSigned, Bits: 8 * size})
		if err != nil {
			t.Fatal(err)
		}
		ints[n] = id
	}
	for _, p := range params {
		proto, err := b.AddFuncProto(ints["int"], []builder.Param{{Name: "a", Type: ints[p]}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.AddFunc(name, proto, btf.LinkageStatic); err != nil {
			t.Fatal(err)
		}
	}
	return parseBuilt(t, b)
}

// parseBuilt marshals what b holds and parses it.
func parseBuilt(t *testing.T, b *builder.Builder) *btf.Spec {
	t.Helper()
	raw, err := b.Marshal(builder.Options{})
	return parseRaw(t, raw, err)
}

// parseRaw parses raw, made with err.
func parseRaw(t *testing.T, raw []byte, err error) *btf.Spec {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestChangedFuncNamed: a changed function's prototype is spelled as a
// declaration of the function, in the text and the JSON, also when the
// name has several definitions.
func TestChangedFuncNamed(t *testing.T) {
	proto := diff.Detail{Change: diff.Changed, Field: "prototype", Old: "int f(int a)", New: "int f(long a)"}
	for _, tc := range []struct {
		name     string
		old, new []string
		want     []diff.Detail
	}{
		{"one", []string{"int"}, []string{"long"},
			[]diff.Detail{proto}},
		{"several", []string{"int", "int"}, []string{"int", "long"},
			[]diff.Detail{{Change: diff.Changed, Field: "definitions", Old: 2, New: 2}, proto}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := diff.Compare(context.Background(), funcsBTF(t, "f", tc.old...), funcsBTF(t, "f", tc.new...), diff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := []diff.Change{{Kind: "func", Name: "f", Change: diff.Changed, Details: tc.want}}
			if d := cmp.Diff(want, changes, cmpopts.IgnoreUnexported(diff.Change{})); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
			var text, js bytes.Buffer
			if err := diff.WriteText(&text, changes); err != nil {
				t.Fatal(err)
			}
			if err := diff.WriteJSON(&js, diff.Report{Changes: changes}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "\tprototype: int f(int a) -> int f(long a)\n") {
				t.Errorf("text:\n%s", text.String())
			}
			for _, out := range []string{text.String(), js.String()} {
				if !strings.Contains(out, "int f(long a)") {
					t.Errorf("output does not name the function:\n%s", out)
				}
			}
		})
	}
}
