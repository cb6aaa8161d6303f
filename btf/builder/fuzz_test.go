package builder_test

import (
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// FuzzRoundTrip: whatever btf.Parse accepts, the Builder copies and
// marshals, and parsing that gives the same types: parse(marshal(copy(x)))
// equals x record by record, with string fields compared by content (an
// empty name at a non-zero offset becomes offset 0). The same holds for
// split data on a small base. Copying may refuse only kinds it cannot
// write (unknown kinds described by a layout section). WriteCopy writes
// the same bytes, and fails where CopyAll does; WriteAsIs (in the other
// byte order) writes the same records and the input's string section.
//
// Seeds: minimal BTF of module types, hand-made BTF with every kind, BTF
// whose strings WriteCopy cannot lay out in place, and in
// testdata/fuzz/FuzzRoundTrip the output of bpftool's "gen min_core_btf"
// for a CO-RE program (prog.bpf.c, on the host and the Debian kernels).
func FuzzRoundTrip(f *testing.F) {
	kinds, _ := allKinds(f)
	small := marshal(f, kinds, builder.Options{})
	f.Add(small)
	f.Add(marshal(f, kinds, builder.Options{ByteOrder: bigEndian, Layout: true}))
	// Strings out of order and names inside strings: WriteCopy refers to
	// its input's strings instead of laying them out in place.
	f.Add(namedBTF("\x00a\x00b\x00a\x00", 3, 1, 5, 2))
	f.Add(tailsBTF(100))
	for _, name := range []string{"af_key", "vsock_loopback"} {
		mod := module(f, name)
		var want []builder.Want
		for _, t := range mod.Types(btf.ScopeOwn) {
			if t.Kind() == btf.KindStruct && t.Name() != "" && len(want) < 3 {
				want = append(want, builder.Want{Name: t.Name(), Kind: btf.KindStruct})
			}
		}
		m, err := builder.Minimal(mod, want, builder.MinimalOptions{FwdPointees: true})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(marshal(f, m, builder.Options{}))
	}
	base := mustParse(f, small, nil)
	sb, err := builder.NewSplit(base)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := sb.AddStruct("pair", 8, []builder.Member{{Name: "a", Type: 1}, {Name: "next", Type: base.LastID() + 2}}); err != nil {
		f.Fatal(err)
	}
	if _, err := sb.AddPointer(base.LastID() + 1); err != nil {
		f.Fatal(err)
	}
	f.Add(marshal(f, sb, builder.Options{}))

	builder.StreamMinimal(f) // every closure of a fuzzed input is small
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := btf.Parse(data, btf.Options{}); err == nil {
			roundTrip(t, s, nil)
			minimalStream(t, s)
		}
		if s, err := btf.Parse(data, btf.Options{Base: base}); err == nil {
			roundTrip(t, s, base)
			minimalStream(t, s)
		}
	})
}

func roundTrip(t *testing.T, s *btf.Spec, base *btf.Spec) {
	b, err := builder.NewSplit(base)
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	streamErr := builder.WriteCopy(&streamed, s, base, builder.Options{})
	var asIs bytes.Buffer
	asIsErr := builder.WriteAsIs(&asIs, s, base, builder.Options{ByteOrder: bigEndian})
	if err := b.CopyAll(s); err != nil {
		if streamErr == nil || asIsErr == nil {
			t.Fatalf("WriteCopy (%v) or WriteAsIs (%v) succeeded where CopyAll failed: %v", streamErr, asIsErr, err)
		}
		for _, typ := range s.Types(btf.ScopeOwn) {
			if int(typ.Kind()) >= wire.NumKinds {
				return // an unknown kind: refusing it is right
			}
		}
		t.Fatalf("CopyAll: %v", err)
	}
	out, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if streamErr != nil || !bytes.Equal(streamed.Bytes(), out) {
		t.Fatalf("WriteCopy differs from CopyAll and Marshal (%v)", streamErr)
	}
	got, err := btf.Parse(out, btf.Options{Base: base})
	if err != nil {
		t.Fatalf("parse of our output: %v", err)
	}
	sameRecords(t, s, got)
	if asIsErr != nil {
		t.Fatalf("WriteAsIs: %v", asIsErr)
	}
	kept, err := btf.Parse(asIs.Bytes(), btf.Options{Base: base})
	if err != nil {
		t.Fatalf("parse of WriteAsIs's output: %v", err)
	}
	sameRecords(t, s, kept)
	want, _ := s.StringSection()
	if own, _ := kept.StringSection(); !bytes.Equal(own, want) {
		t.Fatal("WriteAsIs changed the string section")
	}
	again, err := b.Marshal(builder.Options{})
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("second Marshal differs (%v)", err)
	}
}

// minimalStream checks that WriteMinimal writes what Minimal and Marshal
// give, or fails where Minimal fails, for the names of s's first two named
// types, with and without FwdPointees.
func minimalStream(t *testing.T, s *btf.Spec) {
	var want []builder.Want
	for _, typ := range s.Types(btf.ScopeOwn) {
		if typ.Name() != "" && len(want) < 2 {
			want = append(want, builder.Want{Name: typ.Name()})
		}
	}
	for _, fwd := range []bool{false, true} {
		opts := builder.MinimalOptions{FwdPointees: fwd}
		var streamed bytes.Buffer
		streamErr := builder.WriteMinimal(&streamed, s, want, opts, builder.Options{})
		b, err := builder.Minimal(s, want, opts)
		if err != nil {
			if streamErr == nil {
				t.Fatalf("WriteMinimal succeeded where Minimal failed: %v", err)
			}
			continue
		}
		out, err := b.Marshal(builder.Options{})
		if err != nil {
			t.Fatalf("Marshal of Minimal: %v", err)
		}
		if streamErr != nil || !bytes.Equal(streamed.Bytes(), out) {
			t.Fatalf("fwd %v: WriteMinimal differs from Minimal and Marshal (%v)", fwd, streamErr)
		}
	}
}

// sameRecords compares the own types of a and b word by word, string
// fields by content.
func sameRecords(t *testing.T, a, b *btf.Spec) {
	if a.NumTypes() != b.NumTypes() || a.FirstID() != b.FirstID() {
		t.Fatalf("types %d..%d, want %d..%d", b.FirstID(), b.LastID(), a.FirstID(), a.LastID())
	}
	for id, x := range a.Types(btf.ScopeOwn) {
		y, err := b.TypeByID(id)
		if err != nil {
			t.Fatal(err)
		}
		rx, ry := x.Record(), y.Record()
		if len(rx) != len(ry) {
			t.Fatalf("type %d: record of %d bytes, want %d", id, len(ry), len(rx))
		}
		strs := map[uint32]bool{0: true}
		wire.Record(rx).ForNames(func(at uint32) {
			if at != wire.NameAt {
				strs[at] = true
			}
		})
		for off := uint32(0); off < uint32(len(rx)); off += 4 {
			wx, wy := wire.Word(rx, off), wire.Word(ry, off)
			if strs[off] {
				if sx, sy := str(a, wx), str(b, wy); sx != sy {
					t.Fatalf("type %d: string at %d is %q, want %q", id, off, sy, sx)
				}
			} else if wx != wy {
				t.Fatalf("type %d (%v): word at %d is %#x, want %#x", id, x, off, wy, wx)
			}
		}
	}
}

// str returns the string at offset off of s's string space.
func str(s *btf.Spec, off uint32) string {
	for o := s; o != nil; o = o.Base() {
		data, start := o.StringSection()
		if off >= start {
			rest := data[off-start:]
			return string(rest[:bytes.IndexByte(rest, 0)])
		}
	}
	return "\x00invalid"
}
