package kimage_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/bigendian"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestXzX86 round-trips a real x86 program through "xz --x86", the BCJ
// filter the kernel's build uses for x86 kernels.
func TestXzX86(t *testing.T) {
	prog, err := os.ReadFile("/bin/ls")
	if err != nil {
		t.Skip("no /bin/ls to compress")
	}
	p := sizeAppend(cliCompress(t, prog, "xz", "--check=crc32", "--x86", "--lzma2=,dict=32MiB"), len(prog))
	r, _, err := kimage.Decompress(p, kimage.Xz, kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, prog) {
		t.Fatalf("xz --x86: %d bytes back, want the %d of /bin/ls", len(got), len(prog))
	}
}

// FuzzKernel reads mutated kernel images: any input gives an error or a
// stream, never a panic.
func FuzzKernel(f *testing.F) {
	elf := vmlinux(f)
	for _, args := range [][]string{{"gzip", "-9"}, {"lzop", "-9", "-c"}, {"bzip2", "-9"}, {"lz4", "-l", "stdin", "stdout"}} {
		if _, err := exec.LookPath(args[0]); err != nil {
			continue
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdin = bytes.NewReader(elf[:4096])
		out, err := cmd.Output()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(testfixtures.BzImage(sizeAppend(out, 4096)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _, err := kimage.Kernel(context.Background(), data, kimage.Options{MaxSize: 1 << 20})
		fuzztest.CheckError(t, "kimage", err)
		if err != nil {
			return
		}
		_, err = io.Copy(io.Discard, io.LimitReader(r, 1<<24))
		fuzztest.CheckError(t, "kimage", err)
	})
}

// FuzzLZO decodes mutated lzop streams.
func FuzzLZO(f *testing.F) {
	if _, err := exec.LookPath("lzop"); err == nil {
		for _, n := range []int{100, 5000, 70000} {
			cmd := exec.Command("lzop", "-9", "-c")
			cmd.Stdin = bytes.NewReader(bytes.Repeat([]byte("kernel btf lzo "), n/15+1)[:n])
			out, err := cmd.Output()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(out)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _, err := kimage.Decompress(sizeAppend(data, 1<<20), kimage.Lzo, kimage.Options{MaxSize: 1 << 24})
		fuzztest.CheckError(t, "kimage", err)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(r, 1<<24))
	})
}

// FuzzPackage reads mutated kernel packages (seeded with the Examples'
// package, whose data.tar is xz, and with arm64 Image packages whose
// System.map places the BTF, or misplaces it): an error or a Package
// whose files all parse or fail cleanly, never a panic, within a 1 MiB
// limit.
func FuzzPackage(f *testing.F) {
	demo, err := os.ReadFile(demoPackage)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(demo)
	raw := smallBTF(f)
	img := testfixtures.Arm64Image(testfixtures.KernelBody(raw))
	for _, sm := range [][]byte{testfixtures.SystemMap(len(raw)), testfixtures.SystemMap(len(raw) - 4)} {
		f.Add(testfixtures.DebPackage(f, map[string][]byte{"boot/System.map-6.12.0-x": sm, "boot/vmlinuz-6.12.0-x": img},
			[]string{"boot/System.map-6.12.0-x", "boot/vmlinuz-6.12.0-x"}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := kimage.ReadPackage(context.Background(), bytes.NewReader(data), kimage.Options{MaxSize: 1 << 20})
		fuzztest.CheckError(t, "kimage", err)
		if err != nil {
			return
		}
		vmlinux, err := p.Open("vmlinux", nil)
		fuzztest.CheckError(t, "kimage", err)
		if err != nil {
			return
		}
		defer vmlinux.Close()
		for _, m := range p.Modules() {
			if s, err := p.Open(m, vmlinux); err == nil {
				s.Close()
			}
		}
	})
}

// FuzzArchImage reads mutated kernel images of every format but the
// bzImage (FuzzKernel's): arm64 and riscv64 Images, Image.gz, EFI zboot,
// s390 and arm zImage, each around a small real BTF. Any input gives an
// error or a Spec, never a panic, within a 1 MiB limit.
func FuzzArchImage(f *testing.F) {
	raw := smallBTF(f)
	for _, img := range archImages(f, raw) {
		f.Add(img)
	}
	f.Add(testfixtures.Arm64Image(testfixtures.KernelBody(bigendian.BTF(f, raw))))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := kimage.ReadBTF(context.Background(), bytes.NewReader(data), btf.Options{MaxSize: 1 << 20})
		fuzztest.CheckError(t, "kimage", err)
		if err == nil {
			s.Close()
		}
	})
}
