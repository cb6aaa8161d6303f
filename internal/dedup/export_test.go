package dedup

import "github.com/kmeta-dev/kmeta/btf/builder"

// DedupSteps is m.Dedup, also returning how many steps (types visited by
// the passes, and graph comparison steps) it took.
func DedupSteps(m *Merger) ([]byte, uint32, error) {
	d := m.d
	raw, err := m.Dedup(builder.Options{})
	return raw, d.ticks, err
}

// DeepFromStart makes m's struct pass filter every candidate by deep
// signatures (deep.go), and keep failed pairs (failmemo.go) from the
// first failure, as it does once comparisons have failed for long.
func DeepFromStart(m *Merger) {
	m.d.deepBudget, m.d.deepOn, m.d.failBudget = 0, true, 0
}

// FailsFromStart makes m's struct pass keep failed pairs (failmemo.go)
// from the first failure, with no other filter.
func FailsFromStart(m *Merger) {
	m.d.failBudget = 0
}

// DedupMemo is m.Dedup, also returning the most bytes its failed pairs
// took (failmemo.go).
func DedupMemo(m *Merger) ([]byte, int, error) {
	d := m.d
	raw, err := m.Dedup(builder.Options{})
	return raw, d.fails.peak, err
}
