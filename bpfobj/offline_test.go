package bpfobj_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfobj"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// Type ids of the flows map's key and value in objs.kernel.btf, as
// bpftool's flows.raw.txt prints them.
const flowsKey, flowsValue = 40, 45

// TestKernelBTFOffline opens the BTF that the kernel returned for the test
// object (testdata/bpfobj/objs.kernel.btf, read on the 6.18 VM), without
// root: its raw and C dumps, and the flows map's, are bpftool's.
func TestKernelBTFOffline(t *testing.T) {
	raw := testfixtures.Read(t, "bpfobj/objs.kernel.btf")
	b, err := bpfobj.FromRaw(bpfobj.BTFInfo{ID: 29017, Size: uint32(len(raw))}, raw, bpfobj.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	if err := rawdump.Write(&out, b.Spec, rawdump.Options{}); err != nil {
		t.Fatal(err)
	}
	testfixtures.CompareLines(t, out.Bytes(), testfixtures.Read(t, "bpftool/bpfobj/objs.kernel.raw.txt"))
	out.Reset()
	if err := cdump.Write(&out, b.Spec, cdump.Options{Compat: cdump.CompatBpftool71}); err != nil { // the goldens are bpftool 7.1's
		t.Fatal(err)
	}
	testfixtures.CompareLines(t, out.Bytes(), testfixtures.Read(t, "bpftool/bpfobj/objs.kernel.h"))
	out.Reset()
	for _, id := range []btf.TypeID{flowsKey, flowsValue} {
		ty, err := b.Spec.TypeByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := rawdump.WriteType(&out, ty); err != nil {
			t.Fatal(err)
		}
	}
	testfixtures.CompareLines(t, out.Bytes(), testfixtures.Read(t, "bpftool/bpfobj/flows.raw.txt"))
	out.Reset()
	if err := cdump.Write(&out, b.Spec, cdump.Options{IDs: []btf.TypeID{flowsKey, flowsValue}, Compat: cdump.CompatBpftool71}); err != nil {
		t.Fatal(err)
	}
	testfixtures.CompareLines(t, out.Bytes(), testfixtures.Read(t, "bpftool/bpfobj/flows.h"))
}

// FuzzFromRaw opens mutated raw BTF as the kernel could hand it out, alone
// or as a module's on vmlinux, and prints it: errors, never a panic.
// Seeds: the test object's BTF as the kernel returned it, and a Debian
// module's.
func FuzzFromRaw(f *testing.F) {
	f.Add(testfixtures.Read(f, "bpfobj/objs.kernel.btf"), false)
	f.Add(bytes.Clone(testfixtures.Modules(f)["af_key"]), true)
	base := testfixtures.DebianSpec(f)
	f.Fuzz(func(t *testing.T, raw []byte, module bool) {
		info := bpfobj.BTFInfo{ID: 9, Size: uint32(len(raw))}
		if module {
			info.Name, info.Kernel = "af_key", true
		}
		b, err := bpfobj.FromRaw(info, raw, bpfobj.Options{Base: base})
		if err != nil {
			return
		}
		defer b.Close()
		scope := btf.ScopeAll
		if module {
			scope = btf.ScopeOwn
		}
		rawdump.Write(io.Discard, b.Spec, rawdump.Options{Scope: scope})
		cdump.Write(io.Discard, b.Spec, cdump.Options{IDs: []btf.TypeID{0, b.Spec.LastID()}})
	})
}
