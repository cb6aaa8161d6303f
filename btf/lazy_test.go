package btf_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// flavorIDs collects what FindFlavors yields.
func flavorIDs(s *btf.Spec, q btf.FlavorQuery) []btf.TypeID {
	var ids []btf.TypeID
	for t := range s.FindFlavors(q, btf.FindOptions{}) {
		ids = append(ids, t.ID())
	}
	return ids
}

// TestLazy: a Lazy open of the two vmlinux BTFs has the records of a full
// one, and its FindFlavors, from what the walk found or from a new walk,
// finds what the full Spec's does.
func TestLazy(t *testing.T) {
	q := btf.FlavorQuery{
		Names: []string{"task_struct", "file", "pid_type", "u32", "bpf_map", "no_such_type"},
		Kinds: []btf.Kind{btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindTypedef},
	}
	sub := btf.FlavorQuery{Names: []string{"file", "u32"}, Kinds: []btf.Kind{btf.KindStruct, btf.KindTypedef}}
	other := btf.FlavorQuery{Names: []string{"task_struct", "mm_struct"}, Kinds: []btf.Kind{btf.KindStruct}}
	for _, name := range []string{testfixtures.HostVmlinux, testfixtures.DebianVmlinux} {
		data := testfixtures.Read(t, name)
		full := mustParse(t, data, nil)
		s, err := btf.ParseLazy(data, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameRecords(t, name+", lazily", full, s)
		if !s.ReadsFound(q) || !s.ReadsFound(sub) || s.ReadsFound(other) {
			t.Errorf("%s: FindFlavors reads what was found: %v, %v, %v; want true, true, false",
				name, s.ReadsFound(q), s.ReadsFound(sub), s.ReadsFound(other))
		}
		for _, fq := range []btf.FlavorQuery{q, sub, other} {
			want, got := flavorIDs(full, fq), flavorIDs(s, fq)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("%s: FindFlavors(%v) = %v, want %v", name, fq, got, want)
			}
		}
		if err := s.Err(); err != nil {
			t.Errorf("%s: Err() = %v", name, err)
		}
	}
}

// TestLazyBadReference: a record that refers to a type past the last is
// found when it is handed out, with the error Parse gives for it; the
// records before it are read, and Err keeps the error.
func TestLazyBadReference(t *testing.T) {
	b := newRaw(0)
	b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	b.typ("task_struct", btf.KindStruct, 1, false, 4, b.str("x"), 99, 0)
	b.typ("", btf.KindPointer, 0, false, 2)
	data := b.bytes()
	_, want := btf.Parse(data, btf.Options{})
	var fe *btf.FormatError
	if !errors.As(want, &fe) {
		t.Fatalf("Parse: %v, want a FormatError", want)
	}
	open := func() *btf.Spec {
		s, err := btf.Read(context.Background(), bytes.NewReader(data), btf.Options{Lazy: true,
			Flavors: btf.FlavorQuery{Names: []string{"task_struct"}, Kinds: []btf.Kind{btf.KindStruct}}})

		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	s := open()
	if _, err := s.TypeByID(1); err != nil || s.Err() != nil {
		t.Fatalf("TypeByID(1): %v; Err %v", err, s.Err())
	}
	if _, err := s.TypeByID(2); err == nil || err.Error() != want.Error() {
		t.Fatalf("TypeByID(2): %v, want %v", err, want)
	}
	if err := s.Err(); err == nil || err.Error() != want.Error() {
		t.Fatalf("Err: %v, want %v", err, want)
	}

	s = open()
	var seen []btf.TypeID
	for id := range s.All() {
		seen = append(seen, id)
	}
	if !slices.Equal(seen, []btf.TypeID{1}) || s.Err() == nil {
		t.Errorf("All: %v, Err %v; want [1] and an error", seen, s.Err())
	}

	s = open()
	if ids := flavorIDs(s, btf.FlavorQuery{Names: []string{"task_struct"}, Kinds: []btf.Kind{btf.KindStruct}}); len(ids) != 0 || s.Err() == nil {
		t.Errorf("FindFlavors: %v, Err %v; want nothing and an error", ids, s.Err())
	}
	s = open()
	if ts, err := s.Find("task_struct", btf.FindOptions{}); err == nil || s.Err() == nil {
		t.Errorf("Find: %v, %v, Err %v; want an error", ts, err, s.Err())
	}
}

// TestLazySplitIgnored: with a base, Lazy is ignored and the split BTF is
// checked whole.
func TestLazySplitIgnored(t *testing.T) {
	base := newRaw(0)
	base.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	bs := mustParse(t, base.bytes(), nil)
	b := newRaw(uint32(bs.StringsLen()))
	b.typ("", btf.KindPointer, 0, false, 99)
	if _, err := btf.Read(context.Background(), bytes.NewReader(b.bytes()), btf.Options{Base: bs, Lazy: true}); err == nil {
		t.Fatal("split BTF with a bad reference opened lazily")
	}
}

// TestLazyCheckAllocs: checking a record of a lazy Spec when it is first
// handed out allocates nothing: it runs for every candidate of a CO-RE
// search, 700,000 of them on hostile.Flavors, where 16 bytes each were
// 11 MB of garbage.
func TestLazyCheckAllocs(t *testing.T) {
	s, err := btf.ParseLazy(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.FlavorQuery{})
	if err != nil {
		t.Fatal(err)
	}
	id := btf.TypeID(1)
	n := testing.AllocsPerRun(1000, func() {
		if _, err := s.TypeByID(id); err != nil {
			t.Fatal(err)
		}
		id++ // a record not handed out yet, so checked
	})
	if n != 0 {
		t.Errorf("%v allocations a record, want 0", n)
	}
}

// TestLazyFineIndex: a lookup of a type that a lazy open found walks at
// most three records, as in an eager Spec, and the others keep the
// sparse index's walk of up to fifteen: on the 10,000 CO-RE flavors of
// hostile.Flavors, each a candidate looked up many times while it is
// matched, and on Debian 6.1's vmlinux, whose few task_struct types leave
// most groups without one. The records are those of an eager open.
func TestLazyFineIndex(t *testing.T) {
	flavors, err := hostile.BuildProbe(hostile.Flavors, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	q := btf.FlavorQuery{Names: []string{"task_struct"}, Kinds: []btf.Kind{btf.KindStruct}}
	for name, data := range map[string][]byte{"flavors": flavors, "debian": testfixtures.Read(t, testfixtures.DebianVmlinux)} {
		s, err := btf.ParseLazy(data, q)
		if err != nil {
			t.Fatal(err)
		}
		full := mustParse(t, data, nil)
		sameRecords(t, name, full, s)
		found := map[btf.TypeID]bool{}
		for typ := range full.FindFlavors(q, btf.FindOptions{}) {
			found[typ.ID()] = true
		}
		longest := 0
		for id := s.FirstID(); id <= s.LastID(); id++ {
			n := s.LookupWalk(id)
			if found[id] && n > 3 {
				t.Fatalf("%s: a lookup of found type %d walks %d records, want at most 3", name, id, n)
			}
			longest = max(longest, n)
		}
		if len(found) == 0 || (name == "debian" && longest != 15) {
			t.Errorf("%s: %d types found, the longest walk %d records", name, len(found), longest)
		}
	}
}

// TestLazyCheckWhole: Check on a lazy Spec finds what Parse finds, by
// the largest references first and record by record only then: a bad
// type id or name offset in the last record, of its fixed part or of a
// member, gives Parse's error; sound BTF gives none, and its records
// are then checked.
func TestLazyCheckWhole(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ref, member uint32
		nameOff     uint32 // past the strings if not 0
	}{
		{"sound", 1, 1, 0},
		{"type", 9, 1, 0},
		{"member type", 1, 9, 0},
		{"name", 1, 1, 1000},
	} {
		b := newRaw(0)
		b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
		b.typ("", btf.KindPointer, 0, false, tc.ref)
		member := b.str("x")
		if tc.nameOff != 0 {
			member = tc.nameOff
		}
		b.typ("s", btf.KindStruct, 1, false, 4, member, tc.member, 0)
		data := b.bytes()
		_, want := btf.Parse(data, btf.Options{})
		s, err := btf.ParseLazy(data, btf.FlavorQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(); (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
			t.Errorf("%s: Check: %v, want %v", tc.name, err, want)
		}
		if want == nil && !s.AllChecked() {
			t.Errorf("%s: records not marked checked", tc.name)
		}
	}
}
