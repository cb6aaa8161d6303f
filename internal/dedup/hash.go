package dedup

// Hashes and comparisons of records. libbpf hashes and compares fields kind
// by kind (btf_hash_struct, btf_shallow_equal_struct, btf_compat_fnproto,
// ...); every one of them is either "all words" or "all words but the type
// ids", which is what these functions compute from the record shapes. The
// hash values need not be libbpf's: candidates that can match have equal
// compared fields, hence equal hashes here as there, and the order in which
// libbpf tries them is reproduced by the table (table.go), not by the hash.

const hashMul = 0x9e3779b97f4a7c15

func mix(h uint64, w uint32) uint64 { return (h ^ uint64(w)) * hashMul }

// hashAll hashes every word of r.
func hashAll(r record) uint64 {
	h := uint64(len(r))
	for _, w := range r {
		h = mix(h, w)
	}
	return h
}

// hashShallow hashes every word of r but its type ids.
//
// It walks the fixed part, then the elements with a counter of the word
// within one, rather than asking WordShape.IsRef (a division) of each
// word: the passes hash and compare every struct's members (BENCH.md).
func hashShallow(r record) uint64 {
	s := r.Shape()
	h := uint64(len(r))
	fixed := min(s.Fixed, len(r))
	for i, w := range r[:fixed] {
		if i != s.Ref0 && i != s.Ref1 {
			h = mix(h, w)
		}
	}
	j := 0
	for _, w := range r[fixed:] {
		if j != s.ElemRef {
			h = mix(h, w)
		}
		if j++; j == s.Elem {
			j = 0
		}
	}
	return h
}

// hashEnum hashes only the name: enums and their forward declarations
// (vlen 0, any size, ENUM or ENUM64) must meet in the table.
func hashEnum(r record) uint64 { return mix(1, r[wName]) }

// equalAll reports whether a and b are the same words.
func equalAll(a, b record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// equalShallow reports whether a and b agree on every word but their type
// ids. Equal info words imply equal kinds and lengths.
func equalShallow(a, b record) bool {
	if a[wInfo] != b[wInfo] || len(a) != len(b) {
		return false
	}
	s := a.Shape()
	fixed := min(s.Fixed, len(a))
	b = b[:len(a)]
	for i := range fixed {
		if a[i] != b[i] && i != s.Ref0 && i != s.Ref1 {
			return false
		}
	}
	j := 0
	for i := fixed; i < len(a); i++ {
		if a[i] != b[i] && j != s.ElemRef {
			return false
		}
		if j++; j == s.Elem {
			j = 0
		}
	}
	return true
}
