package kimage_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/kmeta-dev/kmeta/kimage"
)

// arArchive writes an ar archive as dpkg-deb does.
func arArchive(members ...[2][]byte) []byte {
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	for _, m := range members {
		fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", m[0], 0, 0, 0, "100644", len(m[1]))
		b.Write(m[1])
		if len(m[1])%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// debPackage builds a Debian package whose data.tar.xz holds files.
func debPackage(t *testing.T, files map[string][]byte, order []string) []byte {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, name := range order {
		if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[name])
	}
	tw.Close()
	var xb bytes.Buffer
	w, err := xz.NewWriter(&xb)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(tb.Bytes())
	w.Close()
	return arArchive(
		[2][]byte{[]byte("debian-binary"), []byte("2.0\n")},
		[2][]byte{[]byte("control.tar.xz"), {}},
		[2][]byte{[]byte("data.tar.xz"), xb.Bytes()},
	)
}

func TestDeb(t *testing.T) {
	elf := vmlinux(t)
	img := bzImage(goCompress(t, kimage.Gzip, elf))
	files := map[string][]byte{
		"lib/modules/6.1.0-x/kernel/net/key/af_key.ko.xz": []byte("module"),
		"boot/config-6.1.0-x":                             []byte("CONFIG_X=y"),
		"boot/vmlinuz-6.1.0-x":                            img,
	}
	deb := debPackage(t, files, []string{"lib/modules/6.1.0-x/kernel/net/key/af_key.ko.xz", "boot/config-6.1.0-x", "boot/vmlinuz-6.1.0-x"})
	if !kimage.IsDeb(deb) {
		t.Fatal("IsDeb: false")
	}
	got, name, err := kimage.Vmlinuz(context.Background(), deb, 0)
	if err != nil {
		t.Fatal(err)
	}
	if name != "boot/vmlinuz-6.1.0-x" || !bytes.Equal(got, img) {
		t.Fatalf("Vmlinuz: %s, %d bytes", name, len(got))
	}
	r, _, err := kimage.Kernel(context.Background(), deb, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); !bytes.Equal(b, elf) {
		t.Fatal("Kernel of the package is not the ELF file")
	}
	var modules []string
	err = kimage.Walk(context.Background(), deb, 0, func(n string, _ int64, _ io.Reader) error {
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
		if _, _, err := kimage.Kernel(context.Background(), bad, 0); err == nil {
			t.Error("corrupt package: no error")
		}
	}
}
