package builder_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// copyAll rebuilds s (standalone) or its own types (split on s.Base()).
func copyAll(tb testing.TB, s *btf.Spec, split bool) *builder.Builder {
	tb.Helper()
	b := builder.New()
	if split {
		var err error
		if b, err = builder.NewSplit(s.Base()); err != nil {
			tb.Fatal(err)
		}
	}
	if err := b.CopyAll(s); err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestRoundTripVmlinux: the host and Debian kernels' BTF through the
// Builder, in both byte orders and with the layout header, parse back to
// the same bpftool dump (the golden, written by bpftool 7.1): every type
// keeps its id, kind, name and every field.
func TestRoundTripVmlinux(t *testing.T) {
	for _, tc := range []struct{ btf, golden string }{
		{testfixtures.HostVmlinux, "bpftool/host-6.18.44.raw.txt.gz"},
		{testfixtures.DebianVmlinux, "bpftool/debian-6.1.raw.txt.gz"},
	} {
		t.Run(tc.btf, func(t *testing.T) {
			s := fixture(t, tc.btf)
			b := copyAll(t, s, false)
			if b.NumTypes() != s.NumTypes() {
				t.Fatalf("%d types copied, want %d", b.NumTypes(), s.NumTypes())
			}
			want := testfixtures.Read(t, tc.golden)
			for _, opts := range []struct {
				name string
				opts builder.Options
				hdr  int
			}{
				{"host", builder.Options{}, 24},
				{"big", builder.Options{ByteOrder: binary.BigEndian}, 24},
				{"little", builder.Options{ByteOrder: binary.LittleEndian}, 24},
				{"layout", builder.Options{Layout: true}, 32},
			} {
				t.Run(opts.name, func(t *testing.T) {
					if tc.btf != testfixtures.HostVmlinux && opts.name != "host" {
						// The host's vmlinux has every kind; each form of
						// Debian's is one more vmlinux-sized dump.
						testfixtures.SkipUnlessHeavy(t, "one more vmlinux-sized dump")
					}
					out := marshal(t, b, opts.opts)
					got := mustParse(t, out, nil)
					if got.HeaderLen() != opts.hdr {
						t.Errorf("header length %d, want %d", got.HeaderLen(), opts.hdr)
					}
					if bo := opts.opts.ByteOrder; bo != nil && got.ByteOrder() != bo {
						t.Errorf("byte order %v, want %v", got.ByteOrder(), bo)
					}
					testfixtures.CompareLines(t, dump(t, got, btf.ScopeAll), want)
				})
			}
		})
	}
}

// TestRoundTripModules: Debian modules as split BTF on the Debian vmlinux
// match bpftool -B's dump of the originals, and their string sections hold
// no string the base already has.
func TestRoundTripModules(t *testing.T) {
	base := debianSpec(t)
	// The base's strings as a set: searching its multi-MB section once per
	// module string took most of a minute.
	sec, _ := base.StringSection()
	baseStrs := make(map[string]bool)
	for _, s := range bytes.Split(sec, []byte{0}) {
		baseStrs[string(s)] = true
	}
	for _, name := range testfixtures.DebianGoldenModules {
		t.Run(name, func(t *testing.T) {
			mod := module(t, name)
			b := copyAll(t, mod, true)
			if b.FirstID() != base.LastID()+1 {
				t.Fatalf("first id %d, want %d", b.FirstID(), base.LastID()+1)
			}
			for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				out := marshal(t, b, builder.Options{ByteOrder: bo})
				got := mustParse(t, out, base)
				testfixtures.CompareLines(t, dump(t, got, btf.ScopeOwn), testfixtures.Read(t, "bpftool/modules/"+name+".raw.txt.gz"))
				own, _ := got.StringSection()
				for _, s := range bytes.Split(bytes.TrimSuffix(own, []byte{0}), []byte{0}) {
					if len(s) > 0 && baseStrs[string(s)] {
						t.Fatalf("string %q copied although the base has it", s)
					}
				}
				if len(own) > mod.StringsLen() {
					t.Errorf("own strings %d bytes, the original's %d", len(own), mod.StringsLen())
				}
			}
		})
	}
}

// TestRoundTripModuleStandalone: a module copied into a standalone Builder
// takes its base along; ids are preserved over the whole chain.
func TestRoundTripModuleStandalone(t *testing.T) {
	mod := module(t, "af_key")
	b := copyAll(t, mod, false)
	got := mustParse(t, marshal(t, b, builder.Options{}), nil)
	if got.LastID() != mod.LastID() {
		t.Fatalf("last id %d, want %d", got.LastID(), mod.LastID())
	}
	testfixtures.CompareLines(t, dump(t, got, btf.ScopeAll), dump(t, mod, btf.ScopeAll))
}

// TestDeterministic: the same input gives the same bytes, from fresh
// Builders, in every output form.
func TestDeterministic(t *testing.T) {
	s := hostSpec(t)
	mod := module(t, "kvm")
	// Two fresh copies of each, marshalled in every form (two copies per
	// form made four more copies of vmlinux, for nothing more checked).
	vm1, vm2 := copyAll(t, s, false), copyAll(t, s, false)
	kvm1, kvm2 := copyAll(t, mod, true), copyAll(t, mod, true)
	for _, opts := range []builder.Options{{}, {ByteOrder: binary.BigEndian}, {Layout: true}} {
		if !bytes.Equal(marshal(t, vm1, opts), marshal(t, vm2, opts)) {
			t.Fatalf("%+v: two copies of vmlinux differ", opts)
		}
		if !bytes.Equal(marshal(t, kvm1, opts), marshal(t, kvm2, opts)) {
			t.Fatalf("%+v: two split copies of kvm differ", opts)
		}
	}
	want := []builder.Want{{Name: "task_struct"}, {Name: "sk_buff"}}
	for _, fwd := range []bool{false, true} {
		var outs [][]byte
		for range 3 {
			m, err := builder.Minimal(s, want, builder.MinimalOptions{FwdPointees: fwd})
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, marshal(t, m, builder.Options{}))
		}
		if !bytes.Equal(outs[0], outs[1]) || !bytes.Equal(outs[0], outs[2]) {
			t.Fatalf("fwd=%v: minimal outputs differ", fwd)
		}
	}
}
