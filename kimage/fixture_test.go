package kimage_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// demoPackage is a small Debian kernel package for the Examples: its
// kernel's BTF is the Debian 6.1 vmlinux BTF cut down to list_head and
// int (a gzip bzImage), and its one module, demo.ko.zst, has split BTF on
// it with a struct demo_dev. Write it again with
// KMETA_WRITE_FIXTURES=1 go test -run TestDemoPackage ./kimage.
const demoPackage = "../testdata/kimage/linux-image-6.1.0-demo.deb"

func TestDemoPackage(t *testing.T) {
	if os.Getenv("KMETA_WRITE_FIXTURES") == "" {
		if _, err := os.Stat(demoPackage); err != nil {
			t.Fatalf("%v (write it with KMETA_WRITE_FIXTURES=1)", err)
		}
		return
	}
	full, err := btf.Parse(testfixtures.Read(t, "btf/debian-6.1.btf.gz"), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vb, err := builder.Minimal(full, []builder.Want{{Name: "list_head"}, {Name: "int"}}, builder.MinimalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vmlinux, err := vb.MarshalELF(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := btf.Read(context.Background(), bytes.NewReader(vmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	listHead, err := base.FindOne("list_head", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		t.Fatal(err)
	}
	intType, err := base.FindOne("int", btf.FindOptions{Kind: btf.KindInt})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := builder.NewSplit(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mb.AddStruct("demo_dev", 24, []builder.Member{
		{Name: "node", Type: listHead.ID()},
		{Name: "id", Type: intType.ID(), BitOffset: 128},
	}); err != nil {
		t.Fatal(err)
	}
	module, err := mb.MarshalELF(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(vmlinux)
	gw.Close()
	zw, _ := zstd.NewWriter(nil)
	files := map[string][]byte{
		"boot/vmlinuz-6.1.0-demo":                                testfixtures.BzImage(gz.Bytes()),
		"lib/modules/6.1.0-demo/kernel/drivers/misc/demo.ko.zst": zw.EncodeAll(module, nil),
	}
	deb := testfixtures.DebPackage(t, files, []string{"lib/modules/6.1.0-demo/kernel/drivers/misc/demo.ko.zst", "boot/vmlinuz-6.1.0-demo"})
	if err := os.WriteFile(demoPackage, deb, 0o644); err != nil {
		t.Fatal(err)
	}
}
