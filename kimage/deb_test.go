package kimage_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

func TestDeb(t *testing.T) {
	elf := vmlinux(t)
	img := testfixtures.BzImage(goCompress(t, kimage.Gzip, elf))
	files := map[string][]byte{
		"lib/modules/6.1.0-x/kernel/net/key/af_key.ko.xz": []byte("module"),
		"boot/config-6.1.0-x":                             []byte("CONFIG_X=y"),
		"boot/vmlinuz-6.1.0-x":                            img,
	}
	deb := testfixtures.DebPackage(t, files, []string{"lib/modules/6.1.0-x/kernel/net/key/af_key.ko.xz", "boot/config-6.1.0-x", "boot/vmlinuz-6.1.0-x"})
	if !kimage.IsDeb(deb) {
		t.Fatal("IsDeb: false")
	}
	got, name, err := kimage.Vmlinuz(context.Background(), deb, kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if name != "boot/vmlinuz-6.1.0-x" || !bytes.Equal(got, img) {
		t.Fatalf("Vmlinuz: %s, %d bytes", name, len(got))
	}
	r, _, err := kimage.Kernel(context.Background(), deb, kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); !bytes.Equal(b, elf) {
		t.Fatal("Kernel of the package is not the ELF file")
	}
	var modules []string
	err = kimage.Walk(context.Background(), deb, kimage.Options{}, func(n string, _ int64, _ io.Reader) error {
		if kimage.IsModule(n) {
			modules = append(modules, kimage.ModuleName(n))
		}
		return nil
	})
	if err != nil || len(modules) != 1 || modules[0] != "af_key" {
		t.Fatalf("modules %v, %v", modules, err)
	}
	// Truncated and corrupt packages fail cleanly.
	for _, bad := range [][]byte{deb[:100], deb[:len(deb)-50], append([]byte("!<arch>\ndebian-binary  x"), deb[30:]...)} {
		if _, _, err := kimage.Kernel(context.Background(), bad, kimage.Options{}); err == nil {
			t.Error("corrupt package: no error")
		}
	}
}
