package kimage_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// FuzzEntryPoints calls the exported functions that tell and cut inputs
// (Identify, Detect, the Is* tests, Payload and Decompress of what it
// cuts) on mutated inputs, seeded with every kernel image format, the
// demo Debian package and the kernel-core RPMs, and the path tests
// (IsVmlinuz, IsModule and ModuleName, IsDebugVmlinux, IsSystemMap) on a
// mutated path: never a panic; Identify needs no more than IdentifyLen bytes;
// Payload's payload lies inside the image and decompresses under the
// limit or fails in one kimage error.
func FuzzEntryPoints(f *testing.F) {
	ctx := context.Background()
	demo, err := os.ReadFile(demoPackage)
	if err != nil {
		f.Fatal(err)
	}
	bz, _, err := kimage.Vmlinuz(ctx, demo, kimage.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bz[:min(len(bz), 64<<10)], "boot/vmlinuz-6.1.0-demo")
	f.Add(demo[:min(len(demo), 4096)], "lib/modules/6.1.0/kernel/fs/xfs/xfs.ko.xz")
	for _, comp := range coreRPMs {
		rpm, err := os.ReadFile(coreRPM(comp))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(rpm[:min(len(rpm), 4096)], "usr/lib/debug/lib/modules/6.1.0/vmlinux")
	}
	for name, img := range archImages(f, smallBTF(f)) {
		f.Add(img[:min(len(img), 64<<10)], "boot/System.map-"+strings.ReplaceAll(name, " ", "-"))
	}
	f.Add(testfixtures.Tar(f, testfixtures.TarEntry{Name: "x.btf", Data: []byte("x")}), "lib/modules/6.1.0/vmlinuz")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		k := kimage.Identify(data[:min(len(data), kimage.IdentifyLen)])
		_ = k.String()
		if all := kimage.Identify(data); all != k {
			t.Fatalf("Identify = %v on the whole input, %v on its first %d bytes", all, k, kimage.IdentifyLen)
		}
		_ = kimage.Detect(data).String()
		_, _ = kimage.IsImage(data), kimage.IsBzImage(data)
		if p, f, err := kimage.Payload(data); err == nil {
			if len(p) > len(data) || len(p) > 0 && !bytes.Contains(data, p) {
				t.Fatalf("Payload: %d bytes not inside the image", len(p))
			}
			if r, _, err := kimage.Decompress(p, f, kimage.Options{MaxSize: 1 << 20}); err == nil {
				n, err := io.Copy(io.Discard, io.LimitReader(r, 2<<20))
				if err == nil && n > 1<<20 {
					t.Fatalf("Decompress gave %d bytes under a 1 MiB limit", n)
				}
				fuzztest.CheckError(t, "kimage", err)
			} else {
				fuzztest.CheckError(t, "kimage", err)
			}
		} else {
			fuzztest.CheckError(t, "kimage", err)
		}
		_, _, _ = kimage.IsVmlinuz(name), kimage.IsDebugVmlinux(name), kimage.IsSystemMap(name)
		if kimage.IsModule(name) {
			_ = kimage.ModuleName(name)
		}
	})
}
