package lazyfuzz_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/btfids"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
)

// FuzzSpecAPI (issue 37, redteam7c) opens each input eagerly and lazily
// and calls every exported method of btf.Spec and btf.Type on every id
// (and past the last), every name lookup on the names it holds, and the
// public functions of the other packages that take a Spec or a Type
// (rawdump, cdump's Namer and TypeName, builder's copies and Minimal,
// dedup's and dwarf2btf's bases, btfids' sort): no panic, no hang, and
// no more allocation than a bound of the input's size; where the eager
// open succeeds, the lazy Spec gives the same answers. FuzzConsumers
// covers the consumers that print or merge a whole Spec.
func FuzzSpecAPI(f *testing.F) {
	for _, seed := range seeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		eager, eagerErr := btf.Parse(data, btf.Options{})
		lazy, err := btf.Parse(data, btf.Options{Lazy: true})
		if err != nil {
			return
		}
		got := apiBounded(t, lazy, data)
		if eagerErr != nil {
			return
		}
		want := apiBounded(t, eager, data)
		if got != want {
			g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := 0; i < len(g) && i < len(w); i++ {
				if g[i] != w[i] {
					t.Fatalf("lazy and eager differ at line %d:\nlazy:  %.500s\neager: %.500s", i, g[i], w[i])
				}
			}
			t.Fatalf("lazy and eager differ: %d and %d lines", len(g), len(w))
		}
	})
}

// apiAllocBound is the most a walk of the API may allocate for an input
// of n bytes: every call on every id, so a small multiple of the types'
// count times the cost of one answer, plus the fixed cost of the
// builders and bases.
func apiAllocBound(n int) uint64 { return 64<<20 + 4096*uint64(n) }

// apiBounded runs api on s and checks the bytes it allocated.
func apiBounded(t *testing.T, s *btf.Spec, data []byte) string {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	out := api(s, data)
	runtime.ReadMemStats(&m1)
	if a := m1.TotalAlloc - m0.TotalAlloc; a > apiAllocBound(len(data)) {
		t.Errorf("%d bytes of input: %d bytes allocated", len(data), a)
	}
	return out
}

// apiMaxIDs bounds the ids whose every accessor api calls, so that one
// fuzz input stays quick.
const apiMaxIDs = 4096

// api calls every exported method of s and of its types, and the other
// packages' functions that take them, and returns a summary of the
// answers.
func api(s *btf.Spec, data []byte) string {
	var b strings.Builder
	p := func(a ...any) { fmt.Fprintln(&b, a...) }
	p(s.FirstID(), s.LastID(), s.NumTypes(), s.PointerSize(), s.ByteOrder(), s.HeaderLen(), s.StringsLen(),
		len(s.TypeSection()), s.Base() == nil)
	strs, start := s.StringSection()
	p(len(strs), start)
	names := map[string]bool{}
	last := min(s.LastID()+2, apiMaxIDs)
	for id := btf.TypeID(0); id <= last; id++ {
		t, err := s.TypeByID(id)
		p("id", id, err)
		r, err := s.Resolve(id)
		p("resolve", r.ID(), err)
		size, err := s.SizeOf(id)
		p("size", size, err)
		align, err := s.AlignOf(id)
		p("align", align, err)
		if t.Spec() == nil {
			continue
		}
		typeAPI(p, t, names)
	}
	n := 0
	for id, t := range s.All() {
		n++
		p("all", id, t.Kind(), t.Name())
	}
	for _, sc := range []btf.Scope{btf.ScopeAll, btf.ScopeOwn, btf.ScopeBases} {
		n := 0
		for range s.Types(sc) {
			n++
		}
		p("types", sc, n)
	}
	lookups(p, s, names)
	p("check", s.Check(), s.Err())
	others(p, s, data)
	return b.String()
}

// typeAPI calls every accessor of t and collects the names it holds.
func typeAPI(p func(...any), t btf.Type, names map[string]bool) {
	p(t.ID(), t.Kind(), t.Name(), len(t.NameBytes()), t.NameOffset(), t.Size(), t.Ref(), t.Vlen(), t.KindFlag(),
		t.Linkage(), t.ComponentIdx(), t.IsComposite(), t.IsUnionForward(), t.IsVoid(), t.Int(), t.Array(),
		t.String(), len(t.Record()))
	if len(names) < 64 {
		names[t.Name()] = true
	}
	for r := range t.Refs() {
		p("ref", r)
	}
	var path string
	for i, m := range t.Members() {
		p("member", i, m.Type, m.BitOffset, m.BitfieldSize, m.Name(), len(m.NameBytes()), m.NameOffset())
		if path == "" {
			path = m.Name()
		}
	}
	for i, q := range t.Params() {
		p("param", i, q.Type, q.Name(), len(q.NameBytes()), q.NameOffset())
	}
	for i, v := range t.EnumValues() {
		p("value", i, v.Value, v.Signed, v.Is64, v.Int64(), v.Name())
	}
	for i, v := range t.VarSecinfos() {
		p("var", i, v)
	}
	vlen := t.Vlen()
	p(t.Member(vlen).Name(), t.Member(-1).Name(), t.Param(vlen).Name(), t.EnumValue(vlen).Name(), t.VarSecinfo(vlen))
	for _, path := range []string{"", path, path + "[3]", path + ".x", "a.b.c"} {
		f, err := t.Field(path)
		p("field", path, f.Type.ID(), f.BitOffset, f.BitfieldSize, f.Size, err)
	}
	name, err := cdump.TypeName(t)
	p("typename", name, err)
	var buf bytes.Buffer
	p("rawdump type", rawdump.WriteType(&buf, t), buf.String())
	j, err := json.Marshal(rawdump.ToJSON(t))
	p("json", string(j), err)
}

// lookups finds every name of names, as it is and flavored, and a name
// that is not there.
func lookups(p func(...any), s *btf.Spec, names map[string]bool) {
	names["no_such_type"] = true
	var q btf.FlavorQuery
	for _, name := range sortedKeys(names) {
		for _, fl := range []bool{false, true} {
			ts, err := s.Find(name, btf.FindOptions{Flavors: fl})
			p("find", name, fl, len(ts), err)
			t, err := s.FindOne(name, btf.FindOptions{Flavors: fl, Kind: btf.KindStruct})
			p("findone", name, t.ID(), err)
			n := 0
			for range s.Matches(name, btf.FindOptions{Flavors: fl}) {
				n++
			}
			p("matches", n)
		}
		f, err := s.Field(name + ".x")
		p("field", name, f.Type.ID(), f.BitOffset, err)
		q.Names = append(q.Names, name)
	}
	q.Kinds = []btf.Kind{btf.KindStruct, btf.KindUnion, btf.KindTypedef, btf.KindEnum}
	n := 0
	for range s.FindFlavors(q, btf.FindOptions{}) {
		n++
	}
	p("flavors", n)
}

// others calls the other packages' functions that take a Spec.
func others(p func(...any), s *btf.Spec, data []byte) {
	var buf bytes.Buffer
	p("rawdump", rawdump.Write(&buf, s, rawdump.Options{}), sum(buf.Bytes()))
	buf.Reset()
	p("rawdump json", rawdump.WriteJSON(&buf, s, rawdump.Options{}), sum(buf.Bytes()))
	if nm, err := cdump.NewNamer(s); err != nil {
		p("namer", err)
	} else {
		for id := btf.TypeID(0); id <= min(s.LastID()+1, apiMaxIDs); id++ {
			name, err := nm.TypeName(id)
			decl, err2 := nm.Decl(id, "v")
			p("namer", id, name, err, decl, err2)
		}
	}
	buf.Reset()
	p("copy elf", builder.WriteCopyELF(&buf, s, nil, builder.Options{}), sum(buf.Bytes()))
	if sb, err := builder.NewSplit(s); err != nil {
		p("split", err)
	} else {
		id, err := sb.AddPointer(s.LastID())
		raw, err2 := sb.Marshal(builder.Options{})
		p("split", id, err, sum(raw), err2)
	}
	_, err := dedup.NewBase(s, dedup.Options{})
	p("dedup base", err)
	_, err = dwarf2btf.NewBase(s, dwarf2btf.Options{})
	p("dwarf2btf base", err)
	raw, err := btfids.SortByName(data, nil)
	p("sort", sum(raw), err)
}

func sortedKeys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}
