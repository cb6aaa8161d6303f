package cdump_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestTooDeep: an acyclic chain deeper than the walk's limit is an error
// that says so, not a cycle.
func TestTooDeep(t *testing.T) {
	for _, shape := range []string{"typedefs", "structs"} {
		t.Run(shape, func(t *testing.T) {
			g := newGen()
			intT, _, _, _ := g.std()
			// Each type refers to the next one, so that printing the
			// first needs all the others first; the last one is int.
			const n = 5000
			first := intT + 4
			for i := range btf.TypeID(n) {
				next := first + i + 1
				if i == n-1 {
					next = intT
				}
				if shape == "typedefs" {
					g.typedef(fmt.Sprintf("t%d", i), next)
				} else {
					g.strct(fmt.Sprintf("s%d", i), 4, member{"m", next, 0, 0})
				}
			}
			s := parse(t, g.bytes(), nil)
			for _, opts := range []cdump.Options{v71, {Unsorted: true}, {}} {
				err := cdump.Write(&bytes.Buffer{}, s, opts)
				if !errors.Is(err, cdump.ErrTooDeep) || errors.Is(err, cdump.ErrTypeCycle) || !strings.Contains(err.Error(), "deeper than") {
					t.Fatalf("%+v: err = %v, want ErrTooDeep and no cycle", opts, err)
				}
			}
		})
	}
}

// TestHugePadding: a struct claiming gigabytes is an error, not gigabytes
// of "long: 64;" lines; a struct that pads a page is printed.
func TestHugePadding(t *testing.T) {
	for _, tc := range []struct {
		size uint32
		ok   bool
	}{{4096, true}, {1 << 20, true}, {0xffffffff, false}, {1<<20 + 8, false}} {
		g := newGen()
		i, _, _, _ := g.std()
		g.strct("big", tc.size, member{"x", i, 0, 0})
		var buf bytes.Buffer
		err := cdump.Write(&buf, parse(t, g.bytes(), nil), v71)
		if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, cdump.ErrHugePadding) {
			t.Errorf("size %d: err = %v", tc.size, err)
		}
		if !tc.ok && buf.Len() > 1<<20 {
			t.Errorf("size %d: %d bytes written", tc.size, buf.Len())
		}
	}
}

// TestLongChain: a chain of typedefs as deep as the walk allows prints in
// every mode, also through the merge of chunks; the sort walks each link once, not once per type that leads
// through it (which would cost n²/2 steps and fail with ErrTooComplex).
func TestLongChain(t *testing.T) {
	g := newGen()
	intT, _, _, _ := g.std()
	const n = 1800
	first := intT + 4
	for i := range btf.TypeID(n) {
		next := first + i + 1
		if i == n-1 {
			next = intT
		}
		g.typedef(fmt.Sprintf("t%d", i), next)
	}
	s := parse(t, g.bytes(), nil)
	for _, opts := range []cdump.Options{v71, {Unsorted: true}, {}} {
		out := dumpC(t, s, opts)
		if !bytes.Contains(out, []byte("typedef t1 t0;")) {
			t.Errorf("%+v: no typedef t0 in %d bytes", opts, len(out))
		}
	}
	// The merged sort walks a key's first links without the memo; the
	// chain meets the memo past them.
	var got bytes.Buffer
	if err := cdump.WriteChunked(&got, s, cdump.Options{}, 4, false); err != nil {
		t.Fatal(err)
	}
	if want := dumpC(t, s, cdump.Options{}); !bytes.Equal(got.Bytes(), want) {
		t.Errorf("chunks of 16 ids change the header: %s", firstDiff(got.Bytes(), want))
	}
}

// TestTooDeepMemory: the search that tells a cycle from a chain too deep
// (issue 37, seventh campaign) allocates less than the input holds on a
// chain of 300,000 anonymous structs, unions and arrays with bitfields,
// where keeping every frame of its path with its references took 3.4
// times the input (44.7 MB of peak RSS for 9.2 MB, bound 38.4). The
// sorted order's keys may take 6 MiB more (sort.go).
func TestTooDeepMemory(t *testing.T) {
	raw, err := hostile.BuildTwist(hostile.DeepAnon, 300_000)
	if err != nil {
		t.Fatal(err)
	}
	s := parse(t, raw, nil)
	for _, opts := range []cdump.Options{v71, {Unsorted: true}, {}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := cdump.Write(io.Discard, s, opts)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, cdump.ErrTooDeep) {
			t.Fatalf("%+v: err = %v, want ErrTooDeep", opts, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(raw))+6<<20 {
			t.Errorf("%+v: allocated %d MB for %d MB of input", opts, got>>20, len(raw)>>20)
		}
	}
}
