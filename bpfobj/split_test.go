package bpfobj_test

import (
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfobj"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestModuleSplit opens a module's raw BTF as the kernel hands it out
// (the Debian 6.1 kvm module's, which the kernel returns as the split BTF
// of /sys/kernel/btf/kvm) on its vmlinux: its own types print as
// "bpftool -B vmlinux btf dump file kvm.btf" printed them.
func TestModuleSplit(t *testing.T) {
	base := testfixtures.DebianSpec(t)
	raw := bytes.Clone(testfixtures.Modules(t)["kvm"])
	b, err := bpfobj.FromRaw(bpfobj.BTFInfo{ID: 7, Name: "kvm", Size: uint32(len(raw)), Kernel: true}, raw, bpfobj.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Spec.Base() != base {
		t.Fatal("module BTF not on the base")
	}
	got := testfixtures.RawDump(t, b.Spec, btf.ScopeOwn)
	testfixtures.CompareLines(t, got, testfixtures.Read(t, "bpftool/modules/kvm.raw.txt.gz"))
}

// TestProgramNotSplit: a program's BTF stands alone even when a base is
// given; vmlinux's too.
func TestProgramNotSplit(t *testing.T) {
	base := testfixtures.DebianSpec(t)
	raw := testfixtures.Read(t, testfixtures.HostVmlinux)
	for _, info := range []bpfobj.BTFInfo{
		{ID: 1, Name: "vmlinux", Kernel: true},
		{ID: 40, Name: ""},
	} {
		b, err := bpfobj.FromRaw(info, raw, bpfobj.Options{Base: base})
		if err != nil {
			t.Fatal(err)
		}
		if b.Spec.Base() != nil || b.Spec.FirstID() != 1 {
			t.Errorf("%+v: opened on a base", info)
		}
		b.Close()
	}
}

// TestModuleSplitBad: module BTF that does not fit its base is an error,
// not a panic.
func TestModuleSplitBad(t *testing.T) {
	raw := bytes.Clone(testfixtures.Modules(t)["kvm"])
	host := testfixtures.HostSpec(t)
	_, err := bpfobj.FromRaw(bpfobj.BTFInfo{ID: 7, Name: "kvm", Kernel: true}, raw[:len(raw)/2], bpfobj.Options{Base: host})
	if err == nil {
		t.Fatal("half a module opened")
	}
	t.Log(err)
}
