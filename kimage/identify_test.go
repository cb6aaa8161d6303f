package kimage_test

import (
	"archive/tar"
	"bytes"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestIdentify tells each kind from the first bytes of real inputs, or of
// images built as the kernel's build lays them out, and leaves short and
// unknown inputs unknown.
func TestIdentify(t *testing.T) {
	file := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	tw.WriteHeader(&tar.Header{Name: "vmlinux.btf", Mode: 0o644, Size: 2})
	tw.Write([]byte{0x9f, 0xeb})
	tw.Close()
	raw := testfixtures.Read(t, "btf/debian-6.1.btf.gz")
	for _, tc := range []struct {
		name string
		data []byte
		want kimage.Kind
	}{
		{"raw BTF", raw, kimage.KindBTF},
		{"big-endian BTF", []byte{0xeb, 0x9f, 1, 0}, kimage.KindBTF},
		{"ELF module", testfixtures.Read(t, "elf/af_key.ko.gz"), kimage.KindELF},
		{"gzip", file("../testdata/btf/debian-6.1.btf.gz"), kimage.KindCompressed},
		{"zstd", file("../testdata/btf/debian-6.12-cloud.btf.zst"), kimage.KindCompressed},
		{"bzImage", testfixtures.BzImage(file("../testdata/btf/debian-6.1.btf.gz")), kimage.KindImage},
		{"arm64 Image", testfixtures.Arm64Image(raw), kimage.KindImage},
		{"Debian package", file("../testdata/kimage/linux-image-6.1.0-demo.deb"), kimage.KindAr},
		{"RPM package", file("../testdata/kimage/rpm/kernel-core-6.1.0-demo.xz.rpm"), kimage.KindRPM},
		{"tar", tarball.Bytes(), kimage.KindTar},
		{"empty", nil, kimage.KindUnknown},
		{"one byte", []byte{0x9f}, kimage.KindUnknown},
		{"text", []byte("ffffffff81000000 T _stext\n"), kimage.KindUnknown},
	} {
		head := tc.data[:min(len(tc.data), kimage.IdentifyLen)]
		if got := kimage.Identify(head); got != tc.want {
			t.Errorf("%s: Identify = %v, want %v", tc.name, got, tc.want)
		}
	}
}
