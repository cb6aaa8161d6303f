package builder_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// fullSpecs returns a Spec of wire.MaxTypeID ints, the most the kernel
// takes, and a split Spec on it of an int and a pointer to it: the split
// types' ids pass the kernel's limit.
func fullSpecs(t *testing.T) (full, split *btf.Spec) {
	t.Helper()
	info := btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}
	b := builder.New()
	for range wire.MaxTypeID {
		if _, err := b.AddInt("int", 4, info); err != nil {
			t.Fatal(err)
		}
	}
	full = parseOrFatal(t, b, nil)
	sb, err := builder.NewSplit(full)
	if err != nil {
		t.Fatal(err)
	}
	sb.AllowManyTypes()
	id, err := sb.AddInt("long", 8, btf.IntInfo{Encoding: btf.IntSigned, Bits: 64})
	if err == nil {
		_, err = sb.AddPointer(id)
	}
	if err != nil {
		t.Fatal(err)
	}
	return full, parseOrFatal(t, sb, full)
}

func parseOrFatal(t *testing.T, b *builder.Builder, base *btf.Spec) *btf.Spec {
	t.Helper()
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAllowManyTypesCopies checks that AllowManyTypes reaches the copies
// (Copy, CopyAll) and that Options.ManyTypes does WriteCopy's: past the
// kernel's wire.MaxTypeID they are refused without it, and written, the
// same types, with it. A million ints: about a second, ten under the
// race detector, where it skips (it shares nothing between goroutines).
func TestAllowManyTypesCopies(t *testing.T) {
	if raceEnabled {
		t.Skip("a million types under the race detector: run without -race")
	}
	full, split := fullSpecs(t)
	ptr, err := split.TypeByID(split.LastID())
	if err != nil {
		t.Fatal(err)
	}
	for _, many := range []bool{false, true} {
		b, err := builder.NewSplit(full)
		if err != nil {
			t.Fatal(err)
		}
		if many {
			b.AllowManyTypes()
		}
		// The base's ids end at the kernel's limit: every copy passes it.
		_, errCopy := b.Copy(ptr)
		errAll := b.CopyAll(split)
		var buf bytes.Buffer
		errWrite := builder.WriteCopy(&buf, split, full, builder.Options{ManyTypes: many})
		for what, err := range map[string]error{"Copy": errCopy, "CopyAll": errAll, "WriteCopy": errWrite} {
			if many && err != nil {
				t.Errorf("%s with many types: %v", what, err)
			}
			if !many && !errors.Is(err, builder.ErrTooManyTypes) {
				t.Errorf("%s without many types: %v, want ErrTooManyTypes", what, err)
			}
		}
		if !many {
			continue
		}
		got, err := btf.Parse(buf.Bytes(), btf.Options{Base: full})
		if err != nil {
			t.Fatal(err)
		}
		if got.LastID() != split.LastID() || !bytes.Equal(got.TypeSection(), split.TypeSection()) {
			t.Errorf("WriteCopy: last id %d, want %d, or other records", got.LastID(), split.LastID())
		}
		if raw, err := b.Marshal(builder.Options{}); err != nil || !bytes.Equal(raw, buf.Bytes()) {
			t.Errorf("CopyAll's Builder marshals other bytes than WriteCopy's (%v)", err)
		}
	}
}
