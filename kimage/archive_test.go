package kimage_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestPackageInflationBound: a package whose archive holds 256 MiB of
// zeros before the kernel (a few KB of zstd) is refused once the archive
// has inflated to the limit (16 MiB here), not read through: the work
// reading a package takes is linear in its size (input.ArchiveRatio).
// Each file alone was bounded before, and the zeros were skipped.
func TestPackageInflationBound(t *testing.T) {
	files := []hostile.PackageFile{
		{Name: "usr/share/zeros", Zeros: 256 << 20},
		{Name: "boot/vmlinuz-6.1.0", Data: []byte("not reached")},
	}
	deb, err := hostile.DebZstd(files)
	if err != nil {
		t.Fatal(err)
	}
	files[1].Name = "lib/modules/6.1.0/vmlinuz"
	rpm, err := hostile.RPMZstd(files)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, pkg := range map[string][]byte{"deb": deb, "rpm": rpm} {
		_, err := kimage.ReadPackage(ctx, bytes.NewReader(pkg), kimage.Options{MaxSize: 16 << 20})
		if !errors.Is(err, btf.ErrTooLarge) || !strings.Contains(err.Error(), "16 times") {
			t.Errorf("%s (%d bytes): ReadPackage: %v, want the archive's bound", name, len(pkg), err)
		}
		_, err = kimage.ReadBTF(ctx, bytes.NewReader(pkg), btf.Options{MaxSize: 16 << 20})
		if !errors.Is(err, btf.ErrTooLarge) {
			t.Errorf("%s: ReadBTF: %v, want the archive's bound", name, err)
		}
	}
}

// TestPackageWholeOverLimit: an archive that inflates past the limit as a
// whole, each file within it, is read (a -dbg package is gigabytes before
// its vmlinux): xz's claim of the whole was refused against the limit.
func TestPackageWholeOverLimit(t *testing.T) {
	files := map[string][]byte{"a": make([]byte, 700<<10), "b": make([]byte, 700<<10)}
	rand.Read(files["a"])
	rand.Read(files["b"])
	deb := testfixtures.DebPackage(t, files, []string{"a", "b"})
	var seen []string
	err := kimage.Walk(context.Background(), deb, kimage.Options{MaxSize: 1 << 20}, func(name string, size int64, r io.Reader) error {
		seen = append(seen, name)
		_, err := io.Copy(io.Discard, r)
		return err
	})
	if err != nil || len(seen) != 2 {
		t.Errorf("Walk under a 1 MiB limit of 1.4 MB of files: %v, saw %q", err, seen)
	}
}
