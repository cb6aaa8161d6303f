package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The seventh hostile campaign of issue 37: EFI zboot images and kernel
// packages through the real binary.

// gzipZeros returns n zero bytes, gzip-compressed.
func gzipZeros(tb testing.TB, n int64) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if _, err := io.CopyN(zw, zeroes{}, n); err != nil {
		tb.Fatal(err)
	}
	zw.Close()
	return b.Bytes()
}

type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// zbootShapes are EFI zboot headers that lie: about where the payload is,
// how long, what compresses it; and a bomb as payload.
func zbootShapes(tb testing.TB) map[string][]byte {
	bomb := gzipZeros(tb, 256<<20)
	patch := func(img []byte, off int, v uint32) []byte {
		img = bytes.Clone(img)
		binary.LittleEndian.PutUint32(img[off:], v)
		return img
	}
	good := testfixtures.Zboot(gzipZeros(tb, 4096), "gzip")
	shapes := map[string][]byte{
		"truncated header":  good[:56],
		"payload past end":  patch(good, 8, 0x7fffffff),
		"size past end":     patch(good, 12, 0xffffffff),
		"payload at 0":      patch(good, 8, 0),
		"bomb":              testfixtures.Zboot(bomb, "gzip"),
		"bomb named zstd22": testfixtures.Zboot(append(bomb, 0, 0, 0, 0), "zstd22"),
		"nested":            testfixtures.Zboot(gzipOf(tb, testfixtures.Zboot(gzipZeros(tb, 4096), "gzip")), "gzip"),
	}
	unterminated := bytes.Clone(good)
	copy(unterminated[24:56], strings.Repeat("A", 32))
	shapes["unterminated name"] = unterminated
	return shapes
}

func gzipOf(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// TestHostileImagesAndPackages: each shape fails in one line with status
// 2 within the rule for an input over the limit (1.3 times the limit
// plus 10 MB), and no Go runtime error reaches the terminal; a package
// stops at its archive's bound (input.ArchiveRatio), not after inflating
// all its zeros.
func TestHostileImagesAndPackages(t *testing.T) {
	childrenOnly(t)
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	const limit = 16 << 20
	bound := int64(limit*13/10 + 10<<20)
	inputs := zbootShapes(t)
	files := []hostile.PackageFile{{Name: "usr/share/zeros", Zeros: 256 << 20}, {Name: "lib/modules/6.1.0/vmlinuz", Data: []byte("late")}}
	rpm, err := hostile.RPMZstd(files)
	if err != nil {
		t.Fatal(err)
	}
	inputs["rpm: 256 MiB of zeros before the kernel"] = rpm
	files[1].Name = "boot/vmlinuz-6.1.0"
	deb, err := hostile.DebZstd(files)
	if err != nil {
		t.Fatal(err)
	}
	inputs["deb: 256 MiB of zeros before the kernel"] = deb
	i := 0
	for name, data := range inputs {
		i++
		path := writeFile(t, dir, "in"+string(rune('a'+i)), data)
		cmds := [][]string{{"btf", "dump", path}, {"btf", "find", "x", path}}
		if strings.HasPrefix(name, "rpm") || strings.HasPrefix(name, "deb") {
			cmds = append(cmds, []string{"btf", "modules", "--package", path})
		}
		for _, args := range cmds {
			args = append(args, "--max-input", "16M")
			peak, code, stderr := peakRSS(t, timeBin, bin, args...)
			t.Logf("%s: %v: %.1f MB, status %d: %s", name, args[:2], float64(peak)/(1<<20), code, firstLine(stderr))
			pkg := strings.Contains(name, "rpm") || strings.Contains(name, "deb")
			if code != 2 || strings.Count(stderr, "\n") != 1 || peak > bound || pkg && !strings.Contains(stderr, "16 times") ||
				strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("%s: %v: status %d, peak %d MB (bound %d), stderr %.300q", name, args, code, peak>>20, bound>>20, stderr)
			}
		}
	}
}

// TestPackageImagePeakRSS: a package whose kernel image (48 MB, an arm64
// Image that is mostly zeros) is followed by 64 MB of other files. The
// image is released once its BTF is out (a System.map beside it came
// first), not held through the rest of the archive: the peak stays under
// the image plus twice its BTF plus 20 MB. (It held a copy of the image
// for the whole walk, and the image twice for a moment: 110 MB.)
func TestPackageImagePeakRSS(t *testing.T) {
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS on a package with a 48 MB image: set KMETA_HEAVY=1")
	}
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	raw := testfixtures.Read(t, "btf/debian-6.1.btf.gz")
	body := testfixtures.KernelBody(raw)
	image := testfixtures.Arm64Image(append(body, make([]byte, 48<<20-len(body))...))
	deb, err := hostile.DebZstd([]hostile.PackageFile{
		{Name: "boot/System.map-6.1.0", Data: testfixtures.SystemMap(len(raw))},
		{Name: "boot/vmlinuz-6.1.0", Data: image},
		{Name: "usr/share/doc/zeros", Zeros: 64 << 20},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "image.deb", deb)
	bound := int64(len(image) + 2*len(raw) + 20<<20)
	for _, args := range [][]string{{"btf", "modules", "--package", path}, {"btf", "dump", path}} {
		peak, code, stderr := peakRSS(t, timeBin, bin, args...)
		t.Logf("%v: %.1f MB (bound %d MB), status %d %s", args[:2], float64(peak)/(1<<20), bound>>20, code, firstLine(stderr))
		if code != 0 || peak > bound {
			t.Errorf("%v: status %d, peak %d MB over %d MB: %s", args, code, peak>>20, bound>>20, firstLine(stderr))
		}
	}
}
