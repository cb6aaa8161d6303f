package kimage_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestPackageDistilled reads a package whose module was built on a
// distilled base (.BTF.base): opened on the package's vmlinux it is
// relocated, as bpftool 7.5 prints it; without a base it sits on its
// distilled base.
func TestPackageDistilled(t *testing.T) {
	vmlinuxELF, err := builder.ELF(testfixtures.Read(t, "btf/debian-6.12-cloud.btf.zst"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"boot/vmlinuz-6.12.0-t":                       bzip(t, vmlinuxELF),
		"lib/modules/6.12.0-t/updates/dkms/af_key.ko": testfixtures.Read(t, "elf/distilled/debian-6.12-af_key.ko.gz"),
	}
	order := []string{"lib/modules/6.12.0-t/updates/dkms/af_key.ko", "boot/vmlinuz-6.12.0-t"}
	pkg, err := kimage.ReadPackage(context.Background(), bytes.NewReader(testfixtures.DebPackage(t, files, order)), kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vmlinux, err := pkg.Open("vmlinux", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer vmlinux.Close()
	mod, err := pkg.Open("af_key", vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	testfixtures.CompareLines(t, testfixtures.RawDump(t, mod, btf.ScopeOwn),
		testfixtures.Read(t, "bpftool/distilled/debian-6.12-af_key.raw.txt.gz"))
	alone, err := pkg.Open("af_key", nil)
	if err != nil {
		t.Fatal(err)
	}
	if alone.Base() == nil || alone.NumTypes() != mod.NumTypes() {
		t.Errorf("without a base: not on its distilled base")
	}
}
