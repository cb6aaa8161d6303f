package dedup_test

import (
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestPipeline appends modules to one Builder, handed to a Merger after
// each (as dwarf2btf hands over its compile units), and checks that a
// pipelined Merger (Merger.Pipeline) writes the same bytes as one that
// deduplicates at the end, by libbpf 1.8's rules and 1.1's. The oracle
// for the deduplication itself is libbpf (TestMergedModules and the
// encoder's pahole goldens, which run pipelined with more than one job).
func TestPipeline(t *testing.T) {
	vm, base := debian(t)
	names := mergedOrder(t)
	if testing.Short() {
		names = names[:50]
	} else {
		names = names[:300]
	}
	for _, compat := range []dedup.Compat{dedup.CompatLibbpf18, dedup.CompatLibbpf11} {
		var outs [2][]byte
		for i, pipe := range []bool{false, true} {
			m := mergeModules(t, vm, base, compat, pipe, names)
			raw, err := m.Dedup(builder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = raw
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("compat %d: pipelined %d bytes, at the end %d", compat, len(outs[1]), len(outs[0]))
		}
	}
}

// TestPipelineLate checks that Pipeline after the first input does
// nothing, and after Dedup fails.
func TestPipelineLate(t *testing.T) {
	vm, base := debian(t)
	m := dedup.New(base, dedup.Options{})
	b := newSplit(t, vm)
	if err := b.CopyAll(module(t, "af_key")); err != nil {
		t.Fatal(err)
	}
	if err := m.AddBuilder(b); err != nil {
		t.Fatal(err)
	}
	if err := m.Pipeline(); err != nil {
		t.Fatal(err)
	}
	want, err := dedup.Marshal(b, base, builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%d bytes, want %d", len(got), len(want))
	}
	if err := m.Pipeline(); err != dedup.ErrDone {
		t.Errorf("Pipeline after Dedup: %v, want ErrDone", err)
	}
}

// mergeModules returns a Merger on base, deduplicating by compat's rules,
// pipelined if pipe, with the modules names appended to it one by one, as
// a DWARF encoder appends its compile units.
func mergeModules(t *testing.T, vm *btf.Spec, base *dedup.Base, compat dedup.Compat, pipe bool, names []string) *dedup.Merger {
	t.Helper()
	m := dedup.New(base, dedup.Options{Compat: compat})
	if pipe {
		if err := m.Pipeline(); err != nil {
			t.Fatal(err)
		}
	}
	b := newSplit(t, vm)
	for _, name := range names {
		if err := b.CopyAll(module(t, name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := m.AddBuilder(b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b.Forget()
	}
	return m
}
