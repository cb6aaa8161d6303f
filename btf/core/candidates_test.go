package core

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
)

// inPlace is libbpf's pruning of a candidate list in bpf_core_calc_relo_insn:
// each match is copied to the front, and the length cut to the matches
// only when the loop ends (stop < 0) with some; an error at candidate
// stop leaves the length as it was.
func inPlace(ids []btf.TypeID, match []bool, stop int) []btf.TypeID {
	ids = append([]btf.TypeID(nil), ids...)
	j := 0
	for i := range ids {
		if i == stop {
			return ids
		}
		if match[i] {
			ids[j] = ids[i]
			j++
		}
	}
	if j > 0 {
		return ids[:j]
	}
	return ids
}

// TestCandPrune: candMatches.prune leaves a list as libbpf's in-place
// pruning does, for lists longer than a segment, whatever matched and
// wherever the search stopped, and gives back the same list when
// nothing moves.
func TestCandPrune(t *testing.T) {
	s1, s2 := new(btf.Spec), new(btf.Spec)
	for _, n := range []int{0, 1, 5, candSeg, 2*candSeg + 7} {
		for _, pat := range []func(int) bool{
			func(int) bool { return true },
			func(int) bool { return false },
			func(i int) bool { return i%3 != 1 },
			func(i int) bool { return i > n/2 },
		} {
			for _, stop := range []int{-1, 0, n / 2, n - 1} {
				l := new(candList)
				ids := make([]btf.TypeID, n)
				match := make([]bool, n)
				for i := range n {
					ids[i] = btf.TypeID(i + 100)
					match[i] = pat(i)
					s := s1
					if i >= n-3 {
						s = s2 // a second run, as a module's candidates
					}
					l.add(s, ids[i])
				}
				var m candMatches
				for i := range n {
					if i == stop {
						break
					}
					m.note(i, n, match[i])
				}
				got := m.prune(l, stop < 0 || stop >= n)
				var gotIDs []btf.TypeID
				for i, c := range got.all() {
					gotIDs = append(gotIDs, c.id)
					want := s1
					if int(c.id)-100 >= n-3 {
						want = s2
					}
					if c.s != want {
						t.Errorf("n %d stop %d: candidate %d of id %d on the wrong Spec", n, stop, i, c.id)
					}
				}
				want := inPlace(ids, match, stop)
				if diff := cmp.Diff(want, gotIDs, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("n %d stop %d: (-want +got)\n%s", n, stop, diff)
				}
				if got.len() != len(want) {
					t.Errorf("n %d stop %d: len %d, want %d", n, stop, got.len(), len(want))
				}
				if (m.n == 0 || m.n == n) && got != l {
					t.Errorf("n %d stop %d: %d of %d matched, and the list was copied", n, stop, m.n, n)
				}
			}
		}
	}
}
