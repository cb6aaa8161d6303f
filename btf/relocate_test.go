package btf_test

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// Distilled modules: pahole 1.30 with the 6.12 flags and distilled_base
// (testdata/README.md), and the base each was made on.
var distilledModules = []struct{ name, base string }{
	{"debian-6.12-af_key", "btf/debian-6.12-cloud.btf.zst"},
	{"debian-6.12-tun", "btf/debian-6.12-cloud.btf.zst"},
	{"debian-7.3-af_key", "btf/debian-7.3-cloud.btf.zst"},
}

// distilledSections returns the .BTF and .BTF.base sections of a
// distilled module fixture.
func distilledSections(tb testing.TB, name string) (split, base []byte) {
	tb.Helper()
	f, err := elf.NewFile(bytes.NewReader(testfixtures.Read(tb, "elf/distilled/"+name+".ko.gz")))
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range []struct {
		name string
		dst  *[]byte
	}{{".BTF", &split}, {".BTF.base", &base}} {
		if *s.dst, err = f.Section(s.name).Data(); err != nil {
			tb.Fatal(err)
		}
	}
	return split, base
}

// TestRelocateBpftool reads distilled modules on their full base, as
// Open relocates them and as Relocate does, and compares their raw dump
// with bpftool 7.5's (libbpf 1.5's btf__relocate).
func TestRelocateBpftool(t *testing.T) {
	for _, m := range distilledModules {
		t.Run(m.name, func(t *testing.T) {
			vmlinux := testfixtures.Spec(t, testfixtures.Read(t, m.base), nil)
			want := testfixtures.Read(t, "bpftool/distilled/"+m.name+".raw.txt.gz")
			mod, err := btf.Open(context.Background(), testfixtures.Path(t, "elf/distilled/"+m.name+".ko.gz"), btf.Options{Base: vmlinux})
			if err != nil {
				t.Fatal(err)
			}
			defer mod.Close()
			testfixtures.CompareLines(t, testfixtures.RawDump(t, mod, btf.ScopeOwn), want)

			split, base := distilledSections(t, m.name)
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
	split, base := distilledSections(t, "debian-6.12-af_key")
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
	for _, m := range distilledModules[:2] {
		split, base := distilledSections(f, m.name)
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
