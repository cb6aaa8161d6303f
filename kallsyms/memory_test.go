package kallsyms

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestMemoryPerModule: memory grows with the input, not with the number
// of module names: a file of one symbol for each of 5,000 modules (30
// bytes a line) must not allocate a builder for each module while it is
// parsed (about 1 KB), nor keep more than a small table's struct, header
// and names, and its entry in the snapshot (ksym's rule in README).
func TestMemoryPerModule(t *testing.T) {
	var b strings.Builder
	const n = 5000
	for i := range n {
		fmt.Fprintf(&b, "ffffffffc%07x t fn\t[m%d]\n", i*64, i)
	}
	s, alloc := parseAllocs(t, b.String())
	if got := s.Stats().Modules; got != n+1 && got != n {
		t.Fatalf("%d modules", got)
	}
	if per := alloc / n; per > 1<<10 {
		t.Errorf("%d bytes allocated a module, for a 30-byte line", per)
	}
	if per := s.Stats().Bytes / n; per > 320 {
		t.Errorf("%d bytes retained a module, for a 30-byte line", per)
	}
	t.Logf("a module: %d bytes allocated, %d retained", alloc/n, s.Stats().Bytes/n)
}

// TestMemoryRawNames: names that are not made of the dictionary's words
// (random letters) take about a byte a byte in the table, not two (one code
// each), and the load allocates less than three copies of them (the
// builder's and the table's), and they still read back.
func TestMemoryRawNames(t *testing.T) {
	const n, nameLen = 4000, 250
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	names := make([]string, n)
	for i := range names {
		name := make([]byte, nameLen)
		for k := range name {
			name[k] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[r.IntN(52)]
		}
		names[i] = string(name)
		fmt.Fprintf(&b, "%016x T %s\n", 0xffffffff81000000+uint64(i)*16, name)
	}
	s, alloc := parseAllocs(t, b.String())
	if got, limit := s.Stats().Bytes, n*nameLen*11/10; got > limit {
		t.Errorf("snapshot retains %d bytes for %d bytes of names (limit %d)", got, n*nameLen, limit)
	}
	if got, limit := alloc, uint64(3*n*nameLen); got > limit {
		t.Errorf("load allocated %d bytes for %d bytes of names (limit %d)", got, n*nameLen, limit)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		sym, err := s.Lookup(0xffffffff81000000 + uint64(i)*16)
		if err != nil || sym.Name != names[i] {
			t.Fatalf("Lookup of entry %d: %q, %v", i, sym.Name, err)
		}
		if got, err := s.LookupName(names[i], ""); err != nil || len(got) != 1 || got[0].Addr != sym.Addr {
			t.Fatalf("LookupName of entry %d: %v, %v", i, got, err)
		}
	}
}

// parseAllocs parses text and returns the snapshot and the bytes the parse
// allocated.
func parseAllocs(t *testing.T, text string) (*Snapshot, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := Parse(strings.NewReader(text), Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return s, after.TotalAlloc - before.TotalAlloc
}
