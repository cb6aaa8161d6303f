package core

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// reloKey identifies what calcReloInsn computes for a record: its local
// type, access string and kind, and the candidate list it is matched
// against (a pruned list is a new one, a list every candidate matched
// stays the same). Records that agree on all four get the same outcome,
// whatever instruction they relocate. skipped marks the local spec
// alone, of a record whose program is not loaded.
type reloKey struct {
	id      btf.TypeID
	off     uint32
	kind    ext.Kind
	cands   *candList
	skipped bool
}

// memoMax bounds the entries of a memo: past it the memo starts again
// empty, so that an object of many distinct records costs no more than
// that many entries.
const memoMax = 1 << 12

// memo holds what was computed for the records seen so far, by reloKey.
type memo[V any] struct {
	m map[reloKey]V
}

func (m *memo[V]) get(k reloKey) (V, bool) {
	v, ok := m.m[k]
	return v, ok
}

func (m *memo[V]) put(k reloKey, v V) {
	if m.m == nil || len(m.m) >= memoMax {
		m.m = make(map[reloKey]V)
	}
	m.m[k] = v
}
