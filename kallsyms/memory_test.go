package kallsyms

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestMemoryPerModule: memory grows with the input, not with the number
// of module names: a file of one symbol for each of 5,000 modules (30
// bytes a line) must not allocate whole pieces of addresses and names for
// each module while it is parsed.
func TestMemoryPerModule(t *testing.T) {
	var b strings.Builder
	const n = 5000
	for i := range n {
		fmt.Fprintf(&b, "ffffffffc%07x t fn\t[m%d]\n", i*64, i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := Parse(strings.NewReader(b.String()), Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Stats().Modules; got != n+1 && got != n {
		t.Fatalf("%d modules", got)
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 8<<10 {
		t.Errorf("%d bytes allocated a module, for a 30-byte line", per)
	}
}
