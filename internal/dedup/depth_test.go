package dedup_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// Issue 37: the graph comparison and reference resolution recursed, and
// refused graphs nested deeper than 65,536. libbpf has no such limit: a
// ring of 100,000 structs each holding the next is one struct for it.

// dedupRaw deduplicates raw standalone BTF with the rules of the libbpf
// the tests compare with.
func dedupRaw(tb testing.TB, raw []byte, compat dedup.Compat) ([]byte, error) {
	tb.Helper()
	m := dedup.New(nil, dedup.Options{Compat: compat})
	if err := m.AddSpec(parse(tb, raw, nil)); err != nil {
		tb.Fatal(err)
	}
	return m.Dedup(builder.Options{})
}

// TestLibbpfStructRings compares the member rings and chains with
// libbpf's deduplication, at sizes libbpf's recursion and cubic
// comparisons of the chain handle quickly.
func TestLibbpfStructRings(t *testing.T) {
	libbpfdedup(t)
	compat := compatOf(t)
	dir := t.TempDir()
	for _, n := range []int{1, 2, 300} {
		for _, bent := range []bool{false, true} {
			raw, err := hostile.BuildStructRing(n, bent)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("ring-%d-%v", n, bent)
			out := filepath.Join(dir, name+".out")
			runRef(t, "-o", out, writeTemp(t, dir, name+".btf", raw))
			got, err := dedupRaw(t, raw, compat)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			equalBTF(t, got, readFile(t, out), nil)
		}
	}
}

// TestDeepStructs deduplicates a ring of 100,000 structs each holding the
// next (one comparison 100,000 deep, which makes them one struct) and the
// chain of 100,000 that bends the ring's last member to int (no two
// equivalent), by the rules of libbpf 1.8 and 1.1, with the goroutine's
// stack limited to 1 MB: the recursion it replaced took a few hundred
// bytes of stack a level.
func TestDeepStructs(t *testing.T) {
	const n = 100_000
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	for _, bent := range []bool{false, true} {
		raw, err := hostile.BuildStructRing(n, bent)
		if err != nil {
			t.Fatal(err)
		}
		for _, compat := range []dedup.Compat{dedup.CompatLibbpf18, dedup.CompatLibbpf11} {
			got, err := dedupRaw(t, raw, compat)
			if err != nil {
				t.Fatalf("bent %v, compat %v: %v", bent, compat, err)
			}
			want := 2 // void, int and one struct
			if bent {
				want = n + 1
			}
			if s := parse(t, got, nil); s.NumTypes() != want {
				t.Errorf("bent %v, compat %v: %d types, want %d", bent, compat, s.NumTypes(), want)
			}
		}
	}
}

// TestDeepPointers makes a chain of 1,000,000 pointers canonical (one
// reference resolution a million deep) with the goroutine's stack
// limited to 1 MB, and wants the Go heap the deduplication allocates
// within 8 bytes a level (the explicit stack) of the output's size. The ring of 1,000,000 pointers is a
// reference cycle without a struct, refused naming the type, as libbpf
// refuses it.
func TestDeepPointers(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	raw, err := hostile.BuildPointers(n, hostile.PointersToNext)
	if err != nil {
		t.Fatal(err)
	}
	m := dedup.New(nil, dedup.Options{})
	if err := m.AddSpec(parse(t, raw, nil)); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := m.Dedup(builder.Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if s := parse(t, got, nil); s.NumTypes() != n+1 {
		t.Errorf("%d types, want %d", s.NumTypes(), n+1)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(got)+8*n+1<<20) {
		t.Errorf("the deduplication of %d pointers allocated %d MB on the heap for %d MB of output", n, alloc>>20, len(got)>>20)
	}
	ring, err := hostile.BuildPointers(n, hostile.PointersRing)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dedupRaw(t, ring, dedup.CompatLibbpf18)
	if err == nil || !strings.Contains(err.Error(), "reference cycle through type [2]") {
		t.Errorf("a ring of %d pointers: %v, want a reference cycle through type [2]", n, err)
	}
}
