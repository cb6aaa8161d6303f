package dedup_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestAddBuilderPieces hands a module's types to a Merger in pieces, each
// forgotten by the Builder once appended, as dwarf2btf does, and checks
// that the result is byte for byte the one of the same types appended at
// once, read from the Builder (AddBuilder) and parsed from its output
// (AddSpec).
func TestAddBuilderPieces(t *testing.T) {
	vm, base := debian(t)
	for _, name := range []string{"af_key", "kvm"} {
		t.Run(name, func(t *testing.T) {
			mod := module(t, name)
			// The same Copy calls fill whole and pieces; pieces is
			// handed on every 97 types.
			whole, pieces := newSplit(t, vm), newSplit(t, vm)
			m := dedup.New(base, dedup.Options{})
			n := 0
			for id, typ := range mod.Types(btf.ScopeOwn) {
				for _, b := range []*builder.Builder{whole, pieces} {
					if _, err := b.Copy(typ); err != nil {
						t.Fatalf("[%d]: %v", id, err)
					}
				}
				if n++; n%97 == 0 {
					if err := m.AddBuilder(pieces); err != nil {
						t.Fatal(err)
					}
					pieces.Forget()
				}
			}
			if err := m.AddBuilder(pieces); err != nil {
				t.Fatal(err)
			}
			if _, err := pieces.Marshal(builder.Options{}); !errors.Is(err, builder.ErrForgotten) {
				t.Errorf("Marshal after Forget: %v, want ErrForgotten", err)
			}
			got, err := m.Dedup(builder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := dedup.Marshal(whole, base, builder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			equalBTF(t, got, want, vm)
			raw, err := whole.Marshal(builder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := dedup.Specs(base, parse(t, raw, vm))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, parsed) {
				equalBTF(t, got, parsed, vm)
			}
		})
	}
}

func newSplit(tb testing.TB, base *btf.Spec) *builder.Builder {
	tb.Helper()
	b, err := builder.NewSplit(base)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestAddBuilderErrors checks what a Merger refuses from a Builder: types
// forgotten before they were appended, and a reference to a type never
// added, which a Builder allows until it is marshalled.
func TestAddBuilderErrors(t *testing.T) {
	b := builder.New()
	i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	b.Forget()
	b.AddPointer(i)
	if err := dedup.New(nil, dedup.Options{}).AddBuilder(b); err == nil {
		t.Error("a Builder that forgot types before they were appended was accepted")
	}

	b = builder.New()
	p, _ := b.AddPointer(2) // to a type added later
	m := dedup.New(nil, dedup.Options{})
	if err := m.AddBuilder(b); err != nil {
		t.Fatal(err)
	}
	b.Forget()
	if _, err := m.Dedup(builder.Options{}); err == nil {
		t.Errorf("PTR [%d] to a type never added was deduplicated", p)
	}
}
