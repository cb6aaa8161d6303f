package kimage_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"io"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// vmlinux is the ELF file the test images carry: a real BPF object with a
// .BTF section stands in for a kernel.
func vmlinux(tb testing.TB) []byte {
	tb.Helper()
	return testfixtures.Read(tb, "elf/prog.bpf.o.gz")
}

// sizeAppend is the kernel build's size_append: the uncompressed size,
// 32-bit little endian, after the compressed data.
func sizeAppend(compressed []byte, size int) []byte {
	return binary.LittleEndian.AppendUint32(compressed, uint32(size))
}

func goCompress(t testing.TB, f kimage.Format, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	var w io.WriteCloser
	var err error
	switch f {
	case kimage.Gzip:
		w = gzip.NewWriter(&b)
	case kimage.Xz:
		w, err = xz.WriterConfig{CheckSum: xz.CRC32}.NewWriter(&b)
	case kimage.Lzma:
		w, err = lzma.WriterConfig{Size: -1, EOSMarker: true}.NewWriter(&b)
	case kimage.Lz4:
		lw := lz4.NewWriter(&b)
		err = lw.Apply(lz4.LegacyOption(true))
		w = lw
	case kimage.Zstd:
		w, err = zstd.NewWriter(&b)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// cliCompress runs a compressor with the kernel build's format options
// (xz --x86, lz4 -l), at low levels to keep the test fast.
func cliCompress(t *testing.T, data []byte, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed", name)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func TestCompressors(t *testing.T) {
	// Go's xz and lzma writers and readers take 0.1 s or more for each
	// pass over the 650 kB stand-in: the cases that compress with them
	// carry an 11 kB BPF object instead. The command-line compressors,
	// the kernel build's, keep the bigger input, of several blocks.
	big, small := vmlinux(t), testfixtures.Read(t, "bpfobj/objs.bpf.o")
	tests := []struct {
		name    string
		format  kimage.Format
		elf     []byte
		payload func(t *testing.T, elf []byte) []byte
	}{
		{"gzip", kimage.Gzip, big, func(t *testing.T, elf []byte) []byte { return goCompress(t, kimage.Gzip, elf) }},
		{"gzip-cli", kimage.Gzip, big, func(t *testing.T, elf []byte) []byte { return cliCompress(t, elf, "gzip", "-n", "-9") }},
		{"xz", kimage.Xz, small, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(goCompress(t, kimage.Xz, elf), len(elf))
		}},
		{"xz-cli", kimage.Xz, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(cliCompress(t, elf, "xz", "--check=crc32", "--x86", "--lzma2=preset=1,dict=32MiB"), len(elf))
		}},
		{"lzma", kimage.Lzma, small, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(goCompress(t, kimage.Lzma, elf), len(elf))
		}},
		{"lzma-cli", kimage.Lzma, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(cliCompress(t, elf, "lzma", "-1"), len(elf))
		}},
		{"bzip2-cli", kimage.Bzip2, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(cliCompress(t, elf, "bzip2", "-1"), len(elf))
		}},
		{"lz4", kimage.Lz4, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(goCompress(t, kimage.Lz4, elf), len(elf))
		}},
		{"lz4-cli", kimage.Lz4, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(cliCompress(t, elf, "lz4", "-l", "stdin", "stdout"), len(elf))
		}},
		{"zstd", kimage.Zstd, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(goCompress(t, kimage.Zstd, elf), len(elf))
		}},
		{"zstd-cli", kimage.Zstd, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(cliCompress(t, elf, "zstd", "-3", "-c"), len(elf))
		}},
		{"lzo-cli", kimage.Lzo, big, func(t *testing.T, elf []byte) []byte {
			return sizeAppend(cliCompress(t, elf, "lzop", "-1", "-c"), len(elf))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			elf := tc.elf
			want, err := btf.Read(context.Background(), bytes.NewReader(elf), btf.Options{})
			if err != nil {
				t.Fatal(err)
			}
			img := testfixtures.BzImage(tc.payload(t, elf))
			p, f, err := kimage.Payload(img)
			if err != nil {
				t.Fatal(err)
			}
			if f != tc.format {
				t.Fatalf("format %v, want %v", f, tc.format)
			}
			r, claim, err := kimage.Decompress(p, f, kimage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, elf) {
				t.Fatalf("decompressed %d bytes, not the %d of the ELF file", len(got), len(elf))
			}
			if claim != int64(len(elf)) {
				t.Errorf("claimed size %d, want %d", claim, len(elf))
			}
			r, _, err = kimage.Kernel(context.Background(), img, kimage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := btf.Read(context.Background(), r, btf.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.NumTypes() != want.NumTypes() {
				t.Errorf("%d types, want %d", s.NumTypes(), want.NumTypes())
			}
		})
	}
}

func TestBadImages(t *testing.T) {
	img := testfixtures.BzImage(goCompress(t, kimage.Gzip, vmlinux(t)))
	for name, edit := range map[string]func([]byte){
		"payload past the end": func(b []byte) { binary.LittleEndian.PutUint32(b[0x24c:], 1<<30) },
		"old protocol":         func(b []byte) { binary.LittleEndian.PutUint16(b[0x206:], 0x0206) },
		"unknown compression":  func(b []byte) { b[4*512+0x3a0] = 0 },
		"no header":            func(b []byte) { b[0x202] = 'X' },
	} {
		b := bytes.Clone(img)
		edit(b)
		if _, _, err := kimage.Kernel(context.Background(), b, kimage.Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A payload claiming more than the limit is refused before reading.
	p := sizeAppend(goCompress(t, kimage.Zstd, vmlinux(t)), 1<<30)
	if _, _, err := kimage.Decompress(p, kimage.Zstd, kimage.Options{MaxSize: 1 << 20}); err == nil {
		t.Error("claim over the limit: no error")
	}
}
