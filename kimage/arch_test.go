package kimage_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/bigendian"
	"github.com/kmeta-dev/kmeta/kimage"
)

// smallBTF is a real BTF, small: prog.bpf.o's .BTF section.
func smallBTF(tb testing.TB) []byte {
	tb.Helper()
	raw, _, err := btf.Extract(context.Background(), vmlinux(tb), btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// archImages are the images of every format that holds a kernel without
// ELF around it, each around a KernelBody of raw.
func archImages(t testing.TB, raw []byte) map[string][]byte {
	t.Helper()
	body := testfixtures.KernelBody(raw)
	arm64 := testfixtures.Arm64Image(body)
	gz := goCompress(t, kimage.Gzip, arm64)
	zst := sizeAppend(goCompress(t, kimage.Zstd, arm64), len(arm64))
	return map[string][]byte{
		"arm64 Image":      arm64,
		"riscv64 Image":    testfixtures.RiscvImage(body),
		"arm64 Image.gz":   gz,
		"arm64 Image.zst":  zst,
		"EFI zboot gzip":   testfixtures.Zboot(gz, "gzip"),
		"EFI zboot zstd22": testfixtures.Zboot(zst, "zstd22"),
		"s390 zstd":        testfixtures.S390Image(sizeAppend(goCompress(t, kimage.Zstd, body), len(body))),
		"s390 gzip":        testfixtures.S390Image(sizeAppend(goCompress(t, kimage.Gzip, body), len(body))),
		"arm zImage gzip":  testfixtures.ZImage(goCompress(t, kimage.Gzip, body)),
		"arm zImage xz":    testfixtures.ZImage(sizeAppend(goCompress(t, kimage.Xz, body), len(body))),
	}
}

// TestArchImages reads the BTF of each format, as a file, as a stream and
// inside a Debian package, and wants the exact bytes it was built from.
func TestArchImages(t *testing.T) {
	ctx := context.Background()
	for _, order := range []string{"little", "big"} {
		raw := smallBTF(t)
		if order == "big" {
			raw = bigEndianBTF(t, raw)
		}
		for name, img := range archImages(t, raw) {
			t.Run(order+"/"+name, func(t *testing.T) {
				if !kimage.IsImage(img) && kimage.Detect(img) == kimage.Unknown {
					t.Fatal("neither IsImage nor compressed")
				}
				path := filepath.Join(t.TempDir(), "vmlinuz")
				if err := os.WriteFile(path, img, 0o644); err != nil {
					t.Fatal(err)
				}
				s, err := kimage.OpenBTF(ctx, path, btf.Options{})
				if err != nil {
					t.Fatal(err)
				}
				wantSpec(t, s, raw)
				if s, err = kimage.ReadBTF(ctx, bytes.NewReader(img), btf.Options{}); err != nil {
					t.Fatal(err)
				}
				wantSpec(t, s, raw)
				deb := testfixtures.DebPackage(t, map[string][]byte{"boot/vmlinuz-6.12.0-x": img}, []string{"boot/vmlinuz-6.12.0-x"})
				p, err := kimage.ReadPackage(ctx, bytes.NewReader(deb), kimage.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := p.File("vmlinux"); !bytes.Equal(got, raw) {
					t.Errorf("package: %d bytes of BTF, want the %d built in", len(got), len(raw))
				}
			})
		}
	}
}

// wantSpec checks that s has raw's types, and closes it.
func wantSpec(t *testing.T, s *btf.Spec, raw []byte) {
	t.Helper()
	defer s.Close()
	want, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	if s.NumTypes() != want.NumTypes() || s.HeaderLen() != want.HeaderLen() ||
		!bytes.Equal(s.TypeSection(), want.TypeSection()) {
		t.Errorf("%d types, want %d", s.NumTypes(), want.NumTypes())
	}
}

// bigEndianBTF is raw in big-endian byte order, as s390x's.
func bigEndianBTF(t *testing.T, raw []byte) []byte {
	t.Helper()
	return bigendian.BTF(t, raw)
}

// TestSystemMap: a package's System.map places the BTF exactly, and its
// place must agree with the scan's; Debian's placeholder is ignored.
func TestSystemMap(t *testing.T) {
	raw := smallBTF(t)
	img := testfixtures.Arm64Image(testfixtures.KernelBody(raw))
	placeholder := []byte("ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n")
	wrong := testfixtures.SystemMap(len(raw) - 4)
	moved := bytes.ReplaceAll(testfixtures.SystemMap(len(raw)), []byte("0000 T _text"), []byte("0010 T _text"))
	for name, tc := range map[string]struct {
		sysmap []byte
		err    string
	}{
		"real":        {testfixtures.SystemMap(len(raw)), ""},
		"placeholder": {placeholder, ""},
		"wrong size":  {wrong, "System.map says"},
		"wrong place": {moved, "where System.map puts __start_BTF"},
		"no stop":     {[]byte("ffff800080000000 T _text\nffff800080001000 R __start_BTF\n"), "do not bound"},
	} {
		t.Run(name, func(t *testing.T) {
			deb := testfixtures.DebPackage(t, map[string][]byte{"boot/System.map-6.12.0-x": tc.sysmap, "boot/vmlinuz-6.12.0-x": img},
				[]string{"boot/System.map-6.12.0-x", "boot/vmlinuz-6.12.0-x"})
			s, err := kimage.ReadBTF(context.Background(), bytes.NewReader(deb), btf.Options{})
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				wantSpec(t, s, raw)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// TestImageNoBTF: a kernel built without BTF (Debian's armhf) fails with
// btf.ErrNoBTF; two valid BTFs without a System.map are refused.
func TestImageNoBTF(t *testing.T) {
	raw := smallBTF(t)
	body := testfixtures.KernelBody(raw)
	clear(body[testfixtures.ImageBTFOffset:][:len(raw)])
	_, err := kimage.ReadBTF(context.Background(), bytes.NewReader(testfixtures.Arm64Image(body)), btf.Options{})
	if !errors.Is(err, btf.ErrNoBTF) {
		t.Errorf("no BTF: %v", err)
	}
	twice := append(testfixtures.KernelBody(raw), raw...)
	_, err = kimage.ReadBTF(context.Background(), bytes.NewReader(testfixtures.Arm64Image(twice)), btf.Options{})
	if err == nil || !strings.Contains(err.Error(), "valid BTF at 2 offsets") {
		t.Errorf("two BTFs: %v", err)
	}
	// A System.map says which is the kernel's.
	deb := testfixtures.DebPackage(t, map[string][]byte{"boot/System.map-6.12.0-x": testfixtures.SystemMap(len(raw)), "boot/vmlinuz-6.12.0-x": testfixtures.Arm64Image(twice)},
		[]string{"boot/System.map-6.12.0-x", "boot/vmlinuz-6.12.0-x"})
	s, err := kimage.ReadBTF(context.Background(), bytes.NewReader(deb), btf.Options{})
	if err != nil {
		t.Fatalf("two BTFs and a System.map: %v", err)
	}
	wantSpec(t, s, raw)
}

// TestBadArchImages: damaged images of each format fail with an error,
// never a panic, and a huge claimed size is refused under the limit.
func TestBadArchImages(t *testing.T) {
	ctx := context.Background()
	for name, img := range archImages(t, smallBTF(t)) {
		for _, n := range []int{0x40, 0x300, len(img) / 2} {
			if _, err := kimage.ReadBTF(ctx, bytes.NewReader(img[:n]), btf.Options{}); err == nil {
				t.Errorf("%s cut to %d bytes: no error", name, n)
			}
		}
	}
	zb := testfixtures.Zboot([]byte("\x1f\x8b\x08junk"), "gzip")
	binary.LittleEndian.PutUint32(zb[12:], 1<<30)
	if _, _, err := kimage.Kernel(ctx, zb, kimage.Options{}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("zboot payload past the end: %v", err)
	}
	mz := append([]byte("MZ"), make([]byte, 0x300)...)
	if _, _, err := kimage.Kernel(ctx, mz, kimage.Options{}); err == nil || !strings.Contains(err.Error(), "no Linux image header") {
		t.Errorf("a bare PE file: %v", err)
	}
	// A claim over the limit is the limit's error only where the kernel
	// does inflate past it; a smaller one's claim is wrong.
	body := testfixtures.KernelBody(smallBTF(t))
	big := testfixtures.ZImage(sizeAppend(goCompress(t, kimage.Gzip, append(body, make([]byte, 2<<20)...)), 1<<30))
	if _, err := kimage.ReadBTF(ctx, bytes.NewReader(big), btf.Options{MaxSize: 1 << 20}); !errors.Is(err, btf.ErrTooLarge) {
		t.Errorf("zImage claiming 1 GiB under a 1 MiB limit: %v", err)
	}
	small := testfixtures.ZImage(sizeAppend(goCompress(t, kimage.Gzip, body), 1<<30))
	_, err := kimage.ReadBTF(ctx, bytes.NewReader(small), btf.Options{MaxSize: 1 << 20})
	if err == nil || errors.Is(err, btf.ErrTooLarge) || !strings.Contains(err.Error(), ": at 1024: the gzip payload inflates to ") ||
		!strings.Contains(err.Error(), "not the 1073741824 its last four bytes claim") {
		t.Errorf("zImage of a small kernel claiming 1 GiB under a 1 MiB limit: %v", err)
	}
	// A cut zstd frame in an s390 image: "zstd" once.
	z := goCompress(t, kimage.Zstd, body)
	_, err = kimage.ReadBTF(ctx, bytes.NewReader(testfixtures.S390Image(z[:len(z)/2])), btf.Options{})
	if err == nil || !strings.Contains(err.Error(), ", zstd: block past the end") || strings.Contains(err.Error(), "zstd: zstd") {
		t.Errorf("s390 image of a cut zstd frame: %v", err)
	}
	// False payloads, each inflating to most of the limit: the tries stop
	// at twice the limit in all.
	var many []byte
	for range 8 {
		many = append(many, sizeAppend(goCompress(t, kimage.Gzip, make([]byte, 900<<10)), 1)...)
	}
	_, err = kimage.ReadBTF(ctx, bytes.NewReader(testfixtures.S390Image(many)), btf.Options{MaxSize: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "twice the limit") {
		t.Errorf("s390 image of false payloads: %v", err)
	}
}

// TestCompressedImageOverDefaultLimit: an Image.gz over the default 1 GiB
// limit (a sparse file: the image, then zeros) is read as a kernel image
// under a caller's limit that admits it; it was told from other data
// under the default limit, whatever the caller's, and read as BTF.
func TestCompressedImageOverDefaultLimit(t *testing.T) {
	img := archImages(t, smallBTF(t))["arm64 Image.gz"]
	path := filepath.Join(t.TempDir(), "Image.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(img)
	if err == nil {
		err = f.Truncate(1<<30 + 1<<20)
	}
	if err := errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = kimage.OpenBTF(ctx, path, btf.Options{MaxSize: 2 << 30})
	// It is read as an image, not as BTF (bad magic); the zeros after
	// the gzip member are ignored, as the kernel's decompressor does.
	if err != nil {
		t.Errorf("a 1 GiB Image.gz under a 2 GiB limit: %v, want it read as an image", err)
	}
	_, err = kimage.OpenBTF(ctx, path, btf.Options{MaxSize: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("under a 1 MiB limit: %v, want the limit's error", err)
	}
}
