package testfixtures

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// BzImage wraps payload (a compressed kernel) in a minimal x86 boot image:
// a boot sector with a setup header (protocol 2.15) whose payload_offset
// and payload_length locate it, as the kernel's
// arch/x86/boot/tools/build.c lays them out.
func BzImage(payload []byte) []byte {
	const setupSects = 3
	const payloadOff = 0x3a0
	img := make([]byte, (setupSects+1)*512+payloadOff)
	img[0x1f1] = setupSects
	binary.LittleEndian.PutUint16(img[0x1fe:], 0xaa55)
	copy(img[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(img[0x206:], 0x020f)
	binary.LittleEndian.PutUint32(img[0x248:], payloadOff)
	binary.LittleEndian.PutUint32(img[0x24c:], uint32(len(payload)))
	img = append(img, payload...)
	return append(img, make([]byte, 100)...) // what follows the payload
}

// ArArchive writes an ar archive as dpkg-deb does, of members given as
// name and contents.
func ArArchive(members ...[2][]byte) []byte {
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

// DebPackage builds a Debian package whose data.tar.xz holds files, in
// the order given.
func DebPackage(tb testing.TB, files map[string][]byte, order []string) []byte {
	tb.Helper()
	var xb bytes.Buffer
	w, err := xz.NewWriter(&xb)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(dataTar(tb, files, order))
	w.Close()
	return debArchive("data.tar.xz", xb.Bytes())
}

// DebPackageZstd is DebPackage with data.tar.zst (as Ubuntu writes
// them), made at zstd's fastest level: for packages of megabytes, which
// Go's xz writer takes a second of CPU for.
func DebPackageZstd(tb testing.TB, files map[string][]byte, order []string) []byte {
	tb.Helper()
	w, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	return debArchive("data.tar.zst", w.EncodeAll(dataTar(tb, files, order), nil))
}

// dataTar returns the tar archive of files, in the order given.
func dataTar(tb testing.TB, files map[string][]byte, order []string) []byte {
	tb.Helper()
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	for _, name := range order {
		if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			tb.Fatal(err)
		}
		tw.Write(files[name])
	}
	tw.Close()
	return tarBuf.Bytes()
}

// debArchive is the ar archive of a package whose data.tar member is
// called name.
func debArchive(name string, data []byte) []byte {
	return ArArchive(
		[2][]byte{[]byte("debian-binary"), []byte("2.0\n")},
		[2][]byte{[]byte("control.tar.xz"), {}},
		[2][]byte{[]byte(name), data},
	)
}
