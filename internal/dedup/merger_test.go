package dedup_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestMergerBuilders: a split Builder holding a module's types twice (one
// copy from the Spec, one from a Builder of it) deduplicates like the
// module appended to itself, and Builder() gives the same types back in a
// Builder; a used Merger says ErrDone.
func TestMergerBuilders(t *testing.T) {
	vm, base := debian(t)
	mod := module(t, "af_key")
	b, err := builder.NewSplit(vm)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CopyAll(mod); err != nil {
		t.Fatal(err)
	}
	m := dedup.New(base, dedup.Options{})
	if err := m.AddSpec(mod); err != nil {
		t.Fatal(err)
	}
	if err := m.AddBuilder(b); err != nil {
		t.Fatal(err)
	}
	if m.NumTypes() != 2*mod.NumTypes() {
		t.Fatalf("%d types appended, want %d", m.NumTypes(), 2*mod.NumTypes())
	}
	out, err := m.Builder()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := out.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalBTF(t, raw, golden(t, "af_key-x2"), vm)
	if err := m.AddSpec(mod); !errors.Is(err, dedup.ErrDone) {
		t.Errorf("AddSpec after Builder: %v, want ErrDone", err)
	}
	// Split input on another base is refused.
	if err := dedup.New(nil, dedup.Options{}).AddSpec(mod); err == nil {
		t.Error("split input accepted by a standalone Merger")
	}
}

// TestMarshalOptions: dedup.Marshal writes the byte order and header asked
// for, with the same types.
func TestMarshalOptions(t *testing.T) {
	want, err := dedup.Marshal(exampleBuilder(), nil, builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dedup.Marshal(exampleBuilder(), nil, builder.Options{ByteOrder: bigEndianOrder(), Layout: true})
	if err != nil {
		t.Fatal(err)
	}
	s := parse(t, got, nil)
	if s.HeaderLen() != 32 || s.ByteOrder() != bigEndianOrder() {
		t.Errorf("header %d bytes, order %v; want 32, big endian", s.HeaderLen(), s.ByteOrder())
	}
	equalDumps(t, dumpOwn(t, s), dumpOwn(t, parse(t, want, nil)))
}

// TestOptionsKeepStrings checks that the output rebuilt in a Builder (as
// Dedup does for options that change bytes) marshals to the raw output's
// bytes: the rebuild must keep libbpf's string order, in which a string
// whose first user was dropped keeps its place. Dedup with the host's byte
// order, which changes no byte, gives the raw output too.
func TestOptionsKeepStrings(t *testing.T) {
	_, base := debian(t)
	var specs []*btf.Spec
	for _, name := range mergedOrder(t)[:200] {
		specs = append(specs, module(t, name))
	}
	raw, err := dedup.Specs(base, specs...)
	if err != nil {
		t.Fatal(err)
	}
	m := dedup.New(base, dedup.Options{})
	for _, s := range specs {
		if err := m.AddSpec(s); err != nil {
			t.Fatal(err)
		}
	}
	b, err := m.Builder()
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Marshal(builder.Options{ByteOrder: binary.NativeEndian})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, raw) {
		t.Errorf("rebuilt: %d bytes, raw %d; first difference at byte %d", len(got), len(raw), firstDiff(got, raw))
	}
	m = dedup.New(base, dedup.Options{})
	for _, s := range specs {
		if err := m.AddSpec(s); err != nil {
			t.Fatal(err)
		}
	}
	if got, err = m.Dedup(builder.Options{ByteOrder: binary.NativeEndian}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, raw) {
		t.Errorf("with the host's byte order: %d bytes, raw %d; first difference at byte %d", len(got), len(raw), firstDiff(got, raw))
	}
}
