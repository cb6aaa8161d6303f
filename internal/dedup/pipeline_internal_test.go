package dedup

import (
	"slices"
	"strconv"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestPipelineProgress checks that a pipeline over modules, each closed
// under references, runs its passes as they come: the test of its output
// (TestPipeline) would pass as well if it did nothing. af_key's types are
// all decided; kvm has a struct that could match two candidates (or
// resolve a base FWD), where the pipeline stops.
func TestPipelineProgress(t *testing.T) {
	vm, base := debianBase(t)
	m := New(base, Options{})
	if err := m.Pipeline(); err != nil {
		t.Fatal(err)
	}
	b, err := builder.NewSplit(vm)
	if err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	for _, name := range []string{"af_key", "kvm", "xfs"} {
		if err := b.CopyAll(testfixtures.Spec(t, mods[name], vm)); err != nil {
			t.Fatal(err)
		}
		if err := m.AddBuilder(b); err != nil {
			t.Fatal(err)
		}
		b.Forget()
		p := m.d.pipe
		n := m.d.n()
		if name != "af_key" {
			if !p.stopped && p.closed != n {
				t.Errorf("after %s: %d types, closed %d", name, n, p.closed)
			}
			continue
		}
		if p.closed != n || p.structDone != n || p.stopped {
			t.Errorf("after %s: %d types, closed %d, struct pass at %d, stopped %v", name, n, p.closed, p.structDone, p.stopped)
		}
	}
}

// TestCompact checks that a pipeline compacts the duplicate structs,
// unions and enums it decides (compact.go), and that each compacted record expands
// to the record appended: the records of a Merger without a pipeline,
// which keeps them as they were.
func TestCompact(t *testing.T) {
	vm, base := debianBase(t)
	piped, plain := New(base, Options{}), New(base, Options{})
	if err := piped.Pipeline(); err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	b, err := builder.NewSplit(vm)
	if err != nil {
		t.Fatal(err)
	}
	// The same module twice: all of the second copy's structs are
	// duplicates of the first's.
	for _, name := range []string{"af_key", "af_key", "xfs"} {
		if err := b.CopyAll(testfixtures.Spec(t, mods[name], vm)); err != nil {
			t.Fatal(err)
		}
		for _, m := range []*Merger{piped, plain} {
			if err := m.AddBuilder(b); err != nil {
				t.Fatal(err)
			}
		}
		b.Forget()
	}
	d, want := piped.d, plain.d
	if d.n() != want.n() {
		t.Fatalf("%d types, want %d", d.n(), want.n())
	}
	compacted := map[btf.Kind]int{}
	for i := range d.n() {
		raw := d.recs.rec(i)
		if isCompact(raw) {
			k := kindOf(raw)
			compacted[k]++
			full, types := d.recOrCompact(d.first + i)
			switch k {
			case btf.KindStruct, btf.KindUnion:
				if !equalShallow(full, want.recs.rec(i)) || len(types) != vlenOf(full) {
					t.Fatalf("[%d]: canonical side does not match", d.first+i)
				}
			case btf.KindEnum, btf.KindEnum64:
				if !slices.Equal(full, want.recs.rec(i)) || types != nil {
					t.Fatalf("[%d]: canonical side does not match", d.first+i)
				}
			default:
				t.Fatalf("[%d]: compacted %v", d.first+i, k)
			}
		}
		if got := d.ownRec(i); !slices.Equal(got, want.recs.rec(i)) {
			t.Fatalf("[%d]: record %v, want %v", d.first+i, got, want.recs.rec(i))
		}
	}
	if compacted[btf.KindStruct] == 0 || compacted[btf.KindEnum] == 0 {
		t.Errorf("compacted: %v; want structs and enums", compacted)
	}
	if len(d.recs.w) >= len(want.recs.w) {
		t.Errorf("%d words of records, %d without a pipeline", len(d.recs.w), len(want.recs.w))
	}
	t.Logf("%v of %d records compacted: %d words, %d without a pipeline", compacted, d.n(), len(d.recs.w), len(want.recs.w))
}

// debianBase returns the Debian 6.1 vmlinux fixture and its Base.
func debianBase(t *testing.T) (*btf.Spec, *Base) {
	t.Helper()
	vm, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := NewBase(vm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return vm, base
}

// TestPipelineChain checks that the pipeline gives up a struct with more
// than maxPipeTries candidates to compare, rather than comparing it with
// each: on a chain of structs of one name, each holding the next and the
// last an int, every struct is shallow-equal to all before it and none is
// equivalent to another, and each comparison walks to the chain's end
// (issue 37: a mutant of a DWARF member ring that ran for 39 s). On a
// chain of 100,000 the failed comparisons' steps stop it first, after
// fewer than maxPipeTries comparisons. The output must be the one Dedup
// gives without a pipeline.
func TestPipelineChain(t *testing.T) {
	for _, n := range []int{2000, 100_000} {
		b := builder.New()
		intID, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			next := intID + btf.TypeID(i) + 2
			if i == n-1 {
				next = intID
			}
			if _, err := b.AddStruct("s", 4, []builder.Member{{Name: "m", Type: next}}); err != nil {
				t.Fatal(err)
			}
		}
		var outs [2][]byte
		for i, piped := range []bool{true, false} {
			m := mergeBuilder(t, b, piped)
			if piped {
				p := m.d.pipe
				if !p.stopped || p.compared > maxPipeTries*int(p.structDone+1) || n == 100_000 && p.compared >= maxPipeTries {
					t.Errorf("n %d: pipeline: stopped %v after %d structs and %d comparisons", n, p.stopped, p.structDone, p.compared)
				}
			}
			if outs[i], err = m.Dedup(builder.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(outs[0], outs[1]) {
			t.Errorf("n %d: the pipeline changed the output", n)
		}
	}
}

// TestPipelineWideOfDeep checks that a pipeline costs the struct pass no
// more comparison steps than Dedup alone, give or take its budget, on a
// record of n identical chains of 16 anonymous structs and unions, each
// the only member of the next (issue 37's wide record of deep anonymous
// chains, as btf encode appends it). Each struct of a chain is
// shallow-equal to every struct of the first chain, and the pipeline
// compares it with all of them, to know that only one matches; with
// deepBudget as its budget, and Dedup's filters after it started at
// deepBudget, not at the number of types, it took 646,669 steps here to
// Dedup alone's 172,173 (pipeBudget). Steps, not time, are counted.
func TestPipelineWideOfDeep(t *testing.T) {
	const n = 1000
	b := builder.New()
	intID, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		t.Fatal(err)
	}
	tops := make([]builder.Member, n)
	for i := range tops {
		inner := intID
		for depth := range 16 {
			m := []builder.Member{{Name: "m", Type: inner}}
			if depth%2 == 0 {
				inner, err = b.AddStruct("", 4, m)
			} else {
				inner, err = b.AddUnion("", 4, m)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		tops[i] = builder.Member{Name: "m" + strconv.Itoa(i), Type: inner, BitOffset: uint32(32 * i)}
	}
	if _, err := b.AddStruct("wide", uint32(4*n), tops); err != nil {
		t.Fatal(err)
	}
	var outs [2][]byte
	var steps [2]uint32
	for i, piped := range []bool{false, true} {
		m := mergeBuilder(t, b, piped)
		d := m.d
		if outs[i], err = m.Dedup(builder.Options{}); err != nil {
			t.Fatal(err)
		}
		steps[i] = d.ticks
	}
	t.Logf("steps: %d alone, %d pipelined", steps[0], steps[1])
	if !slices.Equal(outs[0], outs[1]) {
		t.Errorf("the pipeline changed the output")
	}
	if steps[1] > steps[0]+pipeBudget {
		t.Errorf("pipelined: %d comparison steps, Dedup alone %d (budget %d)", steps[1], steps[0], pipeBudget)
	}
}

// mergeBuilder returns a Merger with no base, pipelined if piped, with b
// appended to it.
func mergeBuilder(t *testing.T, b *builder.Builder, piped bool) *Merger {
	t.Helper()
	m := New(nil, Options{})
	if piped {
		if err := m.Pipeline(); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.AddBuilder(b); err != nil {
		t.Fatal(err)
	}
	return m
}
