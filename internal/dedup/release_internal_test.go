package dedup

import (
	"runtime"
	"testing"
	"weak"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestStateReleasedByDedup checks that a Merger's state is garbage once
// Dedup returns, while the Merger itself is still reachable: the cleanup
// that frees the state of a Merger dropped before Dedup must not keep it
// (and its heap: small arrays, the reference pass's stack) alive for a
// collection more. btf dedup --each runs a Merger for each of thousands
// of modules, and kept the states of all those since the last collection.
func TestStateReleasedByDedup(t *testing.T) {
	m := newMerger(t, func() ([]byte, error) { return hostile.BuildPointers(100, hostile.PointersToNext) })
	d := weak.Make(m.d)
	if _, err := m.Dedup(builder.Options{}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	if d.Value() != nil {
		t.Error("the state is reachable after Dedup")
	}
	runtime.KeepAlive(m)
}
