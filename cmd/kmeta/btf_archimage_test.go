package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"github.com/kmeta-dev/kmeta/btf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// archImages returns kernel images of the other architectures' formats
// whose BTF is testdata's BPF object's, as kimage's tests build them.
func archImages(t *testing.T) map[string][]byte {
	t.Helper()
	raw, _, err := btf.Extract(context.Background(), testfixtures.Read(t, "elf/prog.bpf.o.gz"), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := testfixtures.KernelBody(raw)
	arm64 := testfixtures.Arm64Image(body)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(arm64)
	w.Close()
	zw, _ := zstd.NewWriter(nil)
	zbody := binary.LittleEndian.AppendUint32(zw.EncodeAll(body, nil), uint32(len(body)))
	return map[string][]byte{
		"Image":       arm64,
		"Image.gz":    gz.Bytes(),
		"vmlinuz.efi": testfixtures.Zboot(gz.Bytes(), "gzip"),
		"riscv64":     testfixtures.RiscvImage(body),
		"s390x":       testfixtures.S390Image(zbody),
	}
}

// TestArchImageDump: btf dump reads each format from a file and from
// standard input as it reads the BPF object whose BTF they carry; a
// damaged or unknown image fails with one line naming the file.
func TestArchImageDump(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	objPath := filepath.Join(dir, "prog.bpf.o")
	if err := os.WriteFile(objPath, testfixtures.Read(t, "elf/prog.bpf.o.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := kmeta(t, nil, "btf", "dump", objPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, img := range archImages(t) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, img, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, in := range []string{path, "-"} {
			got, err := kmeta(t, img, "btf", "dump", in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got != want {
				t.Errorf("%s (%s): the dump differs from the object's", name, in)
			}
		}
		bad := filepath.Join(dir, name+".cut")
		if err := os.WriteFile(bad, img[:len(img)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := kmeta(t, nil, "btf", "dump", bad)
		if err == nil || !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s cut in half: %v; want one line naming the file", name, err)
		}
	}
	pe := filepath.Join(dir, "efi-app")
	if err := os.WriteFile(pe, append([]byte("MZ"), make([]byte, 0x400)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := kmeta(t, nil, "btf", "dump", pe); err == nil || !strings.Contains(err.Error(), "not BTF") {
		t.Errorf("a PE file that is no kernel: %v", err)
	}
	s390 := filepath.Join(dir, "s390x")
	if _, err := kmeta(t, nil, "btf", "dump", "--max-input", "16K", s390); err == nil || !strings.Contains(err.Error(), "--max-input") {
		t.Errorf("s390x over --max-input: %v", err)
	}
}
