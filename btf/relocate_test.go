package btf_test

import (
	"bytes"
	"context"
	"encoding/binary"
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

// TestRelocateMidStringName relocates a module whose first type has the
// name of a type of its distilled base onto a base whose names start
// inside one of its strings (each is the tail of a longer one): that
// name, taken from such a base, would read wrong, which the check of the
// relocated module's name offsets refuses, naming the offset. Relocate
// builds that module without parsing it again, so it makes that check
// itself.
func TestRelocateMidStringName(t *testing.T) {
	split, base := testfixtures.DistilledSections(t, "debian-6.12-af_key")
	dist := testfixtures.Spec(t, base, nil)
	le := binary.LittleEndian
	split = bytes.Clone(split)
	firstName := func(b []byte) []byte { return b[le.Uint32(b[4:])+le.Uint32(b[8:]):] }
	copy(firstName(split), firstName(base)[:4])
	onDist := testfixtures.Spec(t, split, dist)
	full, err := btf.Parse(midStringNames(t, base), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = btf.Relocate(onDist, full)
	if err == nil || !strings.Contains(err.Error(), "lands inside a string of the base") {
		t.Fatalf("err = %v, want a name offset inside a string of the base", err)
	}
}

// midStringNames returns a copy of raw BTF b (little-endian, strings
// last) in which each type's name is moved to the tail of a new string,
// "X" and the name.
func midStringNames(t *testing.T, b []byte) []byte {
	le := binary.LittleEndian
	hdrLen, typeOff, typeLen := le.Uint32(b[4:]), le.Uint32(b[8:]), le.Uint32(b[12:])
	strOff, strLen := le.Uint32(b[16:]), le.Uint32(b[20:])
	if int(hdrLen+strOff+strLen) != len(b) || strOff < typeOff+typeLen {
		t.Fatal("fixture: the string section is not last")
	}
	out := bytes.Clone(b)
	strs := b[hdrLen+strOff:]
	spec, err := btf.Parse(b, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	types := out[hdrLen+typeOff : hdrLen+typeOff+typeLen]
	off := 0
	for id := btf.TypeID(1); id <= spec.LastID(); id++ {
		typ, err := spec.TypeByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if name := le.Uint32(types[off:]); name != 0 {
			s := strs[name:]
			s = s[:bytes.IndexByte(s, 0)]
			le.PutUint32(types[off:], uint32(len(out))-hdrLen-strOff+1)
			out = append(append(append(out, 'X'), s...), 0)
		}
		off += len(typ.Record())
	}
	le.PutUint32(out[20:], uint32(len(out))-hdrLen-strOff)
	return out
}
