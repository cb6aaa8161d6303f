package core

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// randomComposites returns BTF whose last types are composites of up to
// 40 members, named from a few letters (so names repeat), of int, pointer
// and struct types and of earlier anonymous composites, and a local
// struct L with a member of each letter (the local types differ, so some
// same-named matches are incompatible). It returns the composites' ids
// and L's.
func randomComposites(t *testing.T, r *rand.Rand) (*btf.Spec, []btf.TypeID, btf.TypeID) {
	t.Helper()
	b := builder.New()
	must := func(id btf.TypeID, err error) btf.TypeID {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	intID := must(b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}))
	ptrID := must(b.AddPointer(intID))
	leaf := must(b.AddStruct("leaf", 4, []builder.Member{{Name: "x", Type: intID}}))
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	var comps []btf.TypeID
	for range 30 {
		vlen := r.IntN(41)
		ms := make([]builder.Member, vlen)
		for i := range ms {
			ms[i].BitOffset = uint32(32 * i)
			switch k := r.IntN(10); {
			case k < 3 && len(comps) > 0:
				ms[i].Type = comps[r.IntN(len(comps))] // anonymous member
			case k < 6:
				ms[i].Name, ms[i].Type = names[r.IntN(len(names))], intID
			case k < 8:
				ms[i].Name, ms[i].Type = names[r.IntN(len(names))], ptrID
			default:
				ms[i].Name, ms[i].Type = names[r.IntN(len(names))], leaf
			}
		}
		add := b.AddStruct
		if r.IntN(3) == 0 {
			add = b.AddUnion
		}
		comps = append(comps, must(add("", uint32(4*vlen+4), ms)))
	}
	lms := make([]builder.Member, len(names))
	for i, n := range names {
		lms[i] = builder.Member{Name: n, Type: []btf.TypeID{intID, ptrID, leaf}[i%3], BitOffset: uint32(32 * i)}
	}
	local := must(b.AddStruct("L", uint32(4*len(names)), lms))
	return parseBuilt(t, b), comps, local
}

// parseBuilt parses what b holds.
func parseBuilt(t *testing.T, b *builder.Builder) *btf.Spec {
	t.Helper()
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type memberResult struct {
	Found     bool
	Next      btf.TypeID
	Err       string
	N, RawLen int
	Raw       []uint32
	Acc       []string
	BitOffset uint32
}

func runMatchMember(s *btf.Spec, la accessor, tid btf.TypeID, depth int, mi *memberIndexes) (memberResult, int) {
	spec := coreSpec{s: s, rawLen: depth}
	b := &budget{members: mi}
	found, next, err := matchMember(b, s, la, s, tid, &spec)
	res := memberResult{Found: found, Next: next, N: spec.n, RawLen: spec.rawLen,
		Raw: append([]uint32(nil), spec.raw[:spec.rawLen]...), BitOffset: spec.bitOffset}
	if err != nil {
		res.Err = err.Error()
	}
	for _, a := range spec.acc[:spec.n] {
		res.Acc = append(res.Acc, fmt.Sprintf("%d:%d:%s", a.typeID, a.idx, a.name))
	}
	return res, b.visits
}

// TestMemberIndexSameAsScan: the member index gives what libbpf's scan
// gives, spec and quirks included (a same-named incompatible field inside
// an anonymous member stays pushed; the length check at each member), for
// random composites at every starting depth near the limit.
func TestMemberIndexSameAsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		s, comps, local := randomComposites(t, r)
		lt, _ := s.TypeByID(local)
		var mi memberIndexes
		for _, tid := range comps {
			for idx := range lt.Vlen() {
				la := accessor{typeID: local, idx: uint32(idx)}
				for _, depth := range []int{0, maxSpecLen - 2, maxSpecLen - 1, maxSpecLen} {
					want, _ := runMatchMember(s, la, tid, depth, nil)
					got, _ := runMatchMember(s, la, tid, depth, &mi)
					if d := cmp.Diff(want, got); d != "" {
						t.Fatalf("round %d, [%d] member %d at depth %d: indexed differs from the scan (-scan +indexed):\n%s", round, tid, idx, depth, d)
					}
				}
			}
		}
		if len(mi.m) == 0 {
			t.Fatalf("round %d: nothing was indexed", round)
		}
	}
}

// TestMemberIndexWork: a relocation on each member of a struct of n
// members visits O(n) members in all, where libbpf's scan visits n²/2.
func TestMemberIndexWork(t *testing.T) {
	const n = 2000
	b := builder.New()
	intID, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		t.Fatal(err)
	}
	ms := make([]builder.Member, n)
	for i := range ms {
		ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: intID, BitOffset: uint32(32 * i)}
	}
	wide, err := b.AddStruct("w", 4*n, ms)
	if err != nil {
		t.Fatal(err)
	}
	s := parseBuilt(t, b)
	var mi memberIndexes
	visits := 0
	for i := range n {
		res, v := runMatchMember(s, accessor{typeID: wide, idx: uint32(i)}, wide, 0, &mi)
		if !res.Found || res.Raw[0] != uint32(i) {
			t.Fatalf("member %d: %+v", i, res)
		}
		visits += v
	}
	if visits > 2*n {
		t.Errorf("%d relocations over a struct of %d members visited %d members, want at most %d", n, n, visits, 2*n)
	}
}
