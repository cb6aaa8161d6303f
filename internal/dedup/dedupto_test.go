package dedup_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestDedupTo: DedupTo writes what DedupContext returns, for every
// output option, for a lone input (whose records the Merger adopts), a
// lone input appended twice (the second copied after the adopted first)
// and modules merged on a base; it writes in pieces, not whole.
func TestDedupTo(t *testing.T) {
	vm, base := debian(t)
	mods := []*btf.Spec{module(t, "af_key"), module(t, "kvm"), module(t, "af_key")}
	all := []builder.Options{{}, {Layout: true}, {ByteOrder: binary.BigEndian}}
	inputs := []struct {
		name  string
		base  *dedup.Base
		specs []*btf.Spec
		opts  []builder.Options
	}{
		{"vmlinux", nil, []*btf.Spec{vm}, all[:1]},
		{"vmlinux twice", nil, []*btf.Spec{vm, vm}, all[:1]},
		{"modules on vmlinux", base, mods, all},
	}
	merger := func(t *testing.T, b *dedup.Base, specs []*btf.Spec) *dedup.Merger {
		m := dedup.New(b, dedup.Options{Workers: 2})
		for _, s := range specs {
			p, err := m.Prepare(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.AddPrepared(p); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	for _, in := range inputs {
		for _, opts := range in.opts {
			want, err := merger(t, in.base, in.specs).DedupContext(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got countingWriter
			if err := merger(t, in.base, in.specs).DedupTo(context.Background(), &got, opts); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s, %+v: DedupTo wrote %d bytes, DedupContext returned %d; first difference at byte %d",
					in.name, opts, got.Len(), len(want), firstDiff(got.Bytes(), want))
			}
			if opts == (builder.Options{}) && len(want) > 1<<20 && got.writes < 3 {
				t.Errorf("%s: %d bytes in %d writes, want them in pieces", in.name, len(want), got.writes)
			}
		}
	}
}

// TestDedupToError: a write that fails ends DedupTo with its error, and
// the Merger is used up.
func TestDedupToError(t *testing.T) {
	vm, _ := debian(t)
	m := dedup.New(nil, dedup.Options{})
	if err := m.AddSpec(vm); err != nil {
		t.Fatal(err)
	}
	errWrite := errors.New("disk full")
	if err := m.DedupTo(context.Background(), failingWriter{errWrite}, builder.Options{}); !errors.Is(err, errWrite) {
		t.Fatalf("DedupTo to a failing writer: %v, want %v", err, errWrite)
	}
	if _, err := m.Dedup(builder.Options{}); !errors.Is(err, dedup.ErrDone) {
		t.Fatalf("Dedup after DedupTo: %v, want ErrDone", err)
	}
}

type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
