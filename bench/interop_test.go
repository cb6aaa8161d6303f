package bench

import (
	"bytes"
	"encoding/binary"
	"testing"

	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// ciliumCount loads BTF with cilium/ebpf and inflates every type.
func ciliumCount(tb testing.TB, data []byte, base *cbtf.Spec) int {
	tb.Helper()
	var s *cbtf.Spec
	var err error
	if base != nil {
		s, err = cbtf.LoadSplitSpecFromReader(bytes.NewReader(data), base)
	} else {
		s, err = cbtf.LoadSpecFromReader(bytes.NewReader(data))
	}
	if err != nil {
		tb.Fatalf("cilium/ebpf: %v", err)
	}
	n := 0
	for _, err := range s.All() {
		if err != nil {
			tb.Fatalf("cilium/ebpf: %v", err)
		}
		n++
	}
	return n
}

// TestInteropCilium: cilium/ebpf's loader reads what kmeta's Builder
// writes (raw and ELF, both byte orders, minimal and full, split on a
// base) and finds the same number of types.
func TestInteropCilium(t *testing.T) {
	hostRaw := testfixtures.Read(t, "btf/host-6.18.44.btf.gz")
	host, err := btf.Parse(hostRaw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []builder.Want{{Name: "task_struct"}, {Name: "sk_buff"}}
	for _, fwd := range []bool{false, true} {
		m, err := builder.Minimal(host, want, builder.MinimalOptions{FwdPointees: fwd})
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []builder.Options{{}, {ByteOrder: binary.BigEndian}} {
			raw, err := m.Marshal(opts)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := m.MarshalELF(opts)
			if err != nil {
				t.Fatal(err)
			}
			// cilium counts void as a type.
			if n := ciliumCount(t, raw, nil); n != m.NumTypes()+1 {
				t.Errorf("fwd=%v %v: cilium sees %d types, want %d", fwd, opts.ByteOrder, n, m.NumTypes()+1)
			}
			if n := ciliumCount(t, obj, nil); n != m.NumTypes()+1 {
				t.Errorf("fwd=%v %v ELF: cilium sees %d types, want %d", fwd, opts.ByteOrder, n, m.NumTypes()+1)
			}
		}
	}

	full := builder.New()
	if err := full.CopyAll(host); err != nil {
		t.Fatal(err)
	}
	raw, err := full.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// cilium folds some records into others (decl tags), so compare with
	// what it makes of the original.
	if n, want := ciliumCount(t, raw, nil), ciliumCount(t, hostRaw, nil); n != want {
		t.Errorf("full vmlinux: cilium sees %d types, and %d in the original", n, want)
	}
}

// TestInteropCiliumSplit: split output on the Debian vmlinux loads with
// cilium's LoadSplitSpecFromReader on that base.
func TestInteropCiliumSplit(t *testing.T) {
	baseRaw := testfixtures.Read(t, "btf/debian-6.1.btf.gz")
	base, err := btf.Parse(baseRaw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cbase, err := cbtf.LoadSpecFromReader(bytes.NewReader(baseRaw))
	if err != nil {
		t.Fatal(err)
	}
	// A split module built by hand on the base: a struct using base types.
	b, err := builder.NewSplit(base)
	if err != nil {
		t.Fatal(err)
	}
	intT, err := base.FindOne("int", btf.FindOptions{Kind: btf.KindInt})
	if err != nil {
		t.Fatal(err)
	}
	lh, err := base.FindOne("list_head", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddStruct("my_mod_state", 24, []builder.Member{
		{Name: "count", Type: intT.ID()},
		{Name: "list", Type: lh.ID(), BitOffset: 64},
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cbtf.LoadSplitSpecFromReader(bytes.NewReader(raw), cbase)
	if err != nil {
		t.Fatal(err)
	}
	var st *cbtf.Struct
	if err := s.TypeByName("my_mod_state", &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Members) != 2 || st.Members[1].Type.TypeName() != "list_head" {
		t.Fatalf("cilium reads %v", st)
	}
}
