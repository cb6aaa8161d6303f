package btf_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestRelocateBpftool reads distilled modules on their full base, as
// Open relocates them and as Relocate does, and compares their raw dump
// with bpftool 7.5's (libbpf 1.5's btf__relocate).
func TestRelocateBpftool(t *testing.T) {
	for _, m := range testfixtures.Distilled {
		t.Run(m.Name, func(t *testing.T) {
			vmlinux := testfixtures.Spec(t, testfixtures.Read(t, m.Base), nil)
			want := testfixtures.Read(t, "bpftool/distilled/"+m.Name+".raw.txt.gz")
			mod, err := btf.Open(context.Background(), testfixtures.Path(t, "elf/distilled/"+m.Name+".ko.gz"), btf.Options{Base: vmlinux})
			if err != nil {
				t.Fatal(err)
			}
			defer mod.Close()
			testfixtures.CompareLines(t, testfixtures.RawDump(t, mod, btf.ScopeOwn), want)

			split, base := testfixtures.DistilledSections(t, m.Name)
			dist := testfixtures.Spec(t, base, nil)
			onDist := testfixtures.Spec(t, split, dist)
			rel, err := btf.Relocate(onDist, vmlinux)
			if err != nil {
				t.Fatal(err)
			}
			if rel.FirstID() != vmlinux.LastID()+1 || rel.NumTypes() != onDist.NumTypes() || rel.Base() != vmlinux {
				t.Errorf("relocated: ids from %d, %d types, want from %d, %d", rel.FirstID(), rel.NumTypes(), vmlinux.LastID()+1, onDist.NumTypes())
			}
			testfixtures.CompareLines(t, testfixtures.RawDump(t, rel, btf.ScopeOwn), want)
		})
	}
}

// TestRelocateMismatch relocates 6.12's af_key onto 7.3's vmlinux, whose
// struct mutex has another size: libbpf and the kernel refuse it, and so
// does Relocate, naming the type.
func TestRelocateMismatch(t *testing.T) {
	vmlinux := testfixtures.Spec(t, testfixtures.Read(t, "btf/debian-7.3-cloud.btf.zst"), nil)
	_, err := btf.Open(context.Background(), testfixtures.Path(t, "elf/distilled/debian-6.12-af_key.ko.gz"), btf.Options{Base: vmlinux})
	if !errors.Is(err, btf.ErrBaseMismatch) || !strings.Contains(err.Error(), `"mutex"`) {
		t.Fatalf("err = %v, want ErrBaseMismatch naming struct mutex", err)
	}
}

// TestRelocateErrors checks what Relocate refuses.
func TestRelocateErrors(t *testing.T) {
	split, base := testfixtures.DistilledSections(t, "debian-6.12-af_key")
	dist := testfixtures.Spec(t, base, nil)
	onDist := testfixtures.Spec(t, split, dist)
	if _, err := btf.Relocate(dist, dist); err == nil {
		t.Error("Relocate of standalone BTF took it")
	}
	if _, err := btf.Relocate(onDist, onDist); err == nil {
		t.Error("Relocate onto split BTF took it")
	}
	// The distilled base is a base of its own: every type is there, but
	// they are memberless, which relocation does not look at; its names
	// are where they were, so the result reads the same.
	if _, err := btf.Relocate(onDist, dist); err != nil {
		t.Errorf("Relocate onto the distilled base itself: %v", err)
	}
}

// TestOpenDistilledAlone reads a distilled module without a base: it
// sits on its distilled base, as libbpf's btf__parse leaves it.
func TestOpenDistilledAlone(t *testing.T) {
	mod, err := btf.Open(context.Background(), testfixtures.Path(t, "elf/distilled/debian-6.12-af_key.ko.gz"), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Close()
	dist := mod.Base()
	if dist == nil || dist.Base() != nil || mod.FirstID() != dist.LastID()+1 {
		t.Fatalf("not on its distilled base")
	}
	sk, err := mod.FindOne("pfkey_sock", btf.FindOptions{Kind: btf.KindStruct, Scope: btf.ScopeOwn})
	if err != nil {
		t.Fatal(err)
	}
	first, err := mod.TypeByID(sk.Member(0).Type)
	if err != nil || first.Name() != "sock" || first.Vlen() != 0 {
		t.Errorf("pfkey_sock's first member: %v %v, want the memberless struct sock of the distilled base", first, err)
	}
}

// FuzzRelocate feeds arbitrary module BTF and distilled bases to Open's
// relocation path: parse the distilled base, the module on it, and
// relocate it onto a full base: af_key's distilled base itself, on which
// its module relocates too, and which is small enough for the fuzzer to
// go fast (a 6.12 vmlinux takes milliseconds a run). Seeds: the distilled
// fixtures.
func FuzzRelocate(f *testing.F) {
	var vmlinux *btf.Spec
	for _, m := range testfixtures.Distilled[:2] {
		split, base := testfixtures.DistilledSections(f, m.Name)
		f.Add(split, base)
		if vmlinux == nil {
			vmlinux = testfixtures.Spec(f, base, nil)
		}
	}
	f.Fuzz(func(t *testing.T, split, base []byte) {
		dist, err := btf.Parse(base, btf.Options{})
		if err != nil {
			return
		}
		onDist, err := btf.Parse(split, btf.Options{Base: dist})
		if err != nil {
			return
		}
		rel, err := btf.Relocate(onDist, vmlinux)
		if err != nil {
			return
		}
		if rel.FirstID() != vmlinux.LastID()+1 || rel.NumTypes() != onDist.NumTypes() {
			t.Fatalf("relocated: ids from %d, %d types; want from %d, %d", rel.FirstID(), rel.NumTypes(), vmlinux.LastID()+1, onDist.NumTypes())
		}
		for id, typ := range rel.Types(btf.ScopeOwn) {
			_ = typ.Name()
			_, _ = rel.SizeOf(id)
			for _, m := range typ.Members() {
				_ = m.Name()
			}
		}
		_ = rawdump.Write(io.Discard, rel, rawdump.Options{Scope: btf.ScopeOwn})
	})
}
