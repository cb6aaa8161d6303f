package kimage_test

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestCutPackage: a package cut short says its payload is truncated (or
// corrupt), as a kernel image's cut payload does, after the file it was
// reading, not a bare "unexpected EOF".
func TestCutPackage(t *testing.T) {
	ctx := context.Background()
	rpm := func(comp string) []byte {
		b, err := os.ReadFile(coreRPM(comp))
		if err != nil {
			t.Fatal(err)
		}
		return b[:len(b)-100]
	}
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	tw.WriteHeader(&tar.Header{Name: "./boot/vmlinuz-6.1.0-x", Mode: 0o644, Size: 5000, Typeflag: tar.TypeReg})
	tw.Write(make([]byte, 5000))
	tw.Close()
	deb := testfixtures.ArArchive(
		[2][]byte{[]byte("debian-binary"), []byte("2.0\n")},
		[2][]byte{[]byte("control.tar.xz"), {}},
		[2][]byte{[]byte("data.tar"), tarBuf.Bytes()[:3000]},
	)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"gzip RPM, in the kernel", rpm("gz"), "kimage: the package payload is truncated or corrupt: lib/modules/6.1.0-demo/vmlinuz (3279 bytes): unexpected EOF"},
		{"zstd RPM, between files", rpm("zst"), "kimage: the package payload is truncated or corrupt: cpio header: unexpected EOF"},
		{"deb, in the kernel", deb, "kimage: the package payload is truncated or corrupt: boot/vmlinuz-6.1.0-x (5000 bytes): unexpected EOF"},
	} {
		_, err := kimage.ReadPackage(ctx, bytes.NewReader(c.data), kimage.Options{MaxSize: 1 << 20})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}
