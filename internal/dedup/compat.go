package dedup

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
)

// Compat names a libbpf version whose deduplication a Merger reproduces
// where versions differ, chosen by Options.Compat.
//
// Its values are CompatLibbpf18 (the zero value) and CompatLibbpf11.
type Compat int

const (
	// CompatLibbpf18 is libbpf 1.8's deduplication, the default.
	CompatLibbpf18 Compat = iota
	// CompatLibbpf11 is libbpf 1.1's (Debian 12's libbpf1 1.1.2, which its
	// pahole 1.24 uses): when the hypothetical map already pairs a
	// canonical type with another candidate, the two count as the same
	// only if they are arrays equal word for word
	// (btf_dedup_identical_arrays) or structs or unions equal but for
	// member types that are the same ids or, in turn, such arrays, structs
	// or unions (btf_dedup_identical_structs); libbpf 1.8 compares any two
	// types structurally (btf_dedup_identical_types). Encoded DWARF meets
	// this case: of 69 Debian 6.1 debug modules, sctp and sunrpc keep two
	// more types with 1.1. libbpf 1.2 to 1.5 deduplicate as 1.1 does
	// (their btf__dedup differs from 1.1's only in comments and in how
	// it walks string offsets), so this is also the rule of Debian 13's
	// pahole 1.30, which links libbpf 1.5.
	CompatLibbpf11
)

var compatNames = [...]string{CompatLibbpf18: "libbpf-1.8", CompatLibbpf11: "libbpf-1.1"}

// String returns c's name as ParseCompat reads it: "libbpf-1.8" or
// "libbpf-1.1".
func (c Compat) String() string {
	if c < 0 || int(c) >= len(compatNames) {
		return fmt.Sprintf("Compat(%d)", int(c))
	}
	return compatNames[c]
}

// ParseCompat returns the Compat named s, as Compat.String names it.
func ParseCompat(s string) (Compat, error) {
	for c, name := range compatNames {
		if s == name {
			return Compat(c), nil
		}
	}
	return 0, fmt.Errorf("dedup: unknown compatibility mode %q (want libbpf-1.8 or libbpf-1.1)", s)
}

// sameOnConflict reports whether hv, the candidate the hypothetical map
// pairs with a canonical type, and cand, another candidate for it, count
// as the same type, by the rule of the Merger's libbpf version.
func (d *state) sameOnConflict(hv, cand uint32) bool {
	if d.compat == CompatLibbpf11 {
		return d.identical11(hv, cand, 16)
	}
	return d.identical(hv, cand, 16)
}

// identical11 is libbpf 1.1's btf_dedup_identical_arrays followed by
// btf_dedup_identical_structs, which recurses without bound; depth bounds
// it here (by-value nesting is acyclic in real BTF).
func (d *state) identical11(id1, id2 uint32, depth int) bool {
	if depth <= 0 {
		return false
	}
	t1, t2 := d.rec(id1), d.rec(id2)
	k := kindOf(t1)
	if k == btf.KindArray && kindOf(t2) == btf.KindArray {
		return equalAll(t1, t2)
	}
	if k != btf.KindStruct && k != btf.KindUnion || k != kindOf(t2) || !equalShallow(t1, t2) {
		return false
	}
	s := t1.Shape()
	for i := s.Fixed + s.ElemRef; i < len(t1); i += s.Elem {
		if t1[i] != t2[i] && !d.identical11(t1[i], t2[i], depth-1) {
			return false
		}
	}
	return true
}
