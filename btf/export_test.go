package btf

import "sync/atomic"

// SetSplitMin sets the size of type section from which indexTypes walks it
// in two halves, and returns a function that restores the old one.
func SetSplitMin(n uint32) (restore func()) {
	old := splitMin.Swap(n)
	return func() { splitMin.Store(old) }
}

// merges counts the split walks whose second half was used.
var merges atomic.Int64

func init() { testHookMerged = func() { merges.Add(1) } }

// SplitMerges returns how many split walks had their second half used.
func SplitMerges() int64 { return merges.Load() }
