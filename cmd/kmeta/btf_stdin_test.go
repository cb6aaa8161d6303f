package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// kernelImages returns a small x86 bzImage (gzip) and a Debian package
// holding it, whose "kernel" is testdata's BPF object with its .BTF
// section, and that object itself. They are made once per test process
// (Go's xz writer takes half a second for the package) and shared: the
// caller must not modify them.
func kernelImages(t *testing.T) (bz, deb, obj []byte) {
	t.Helper()
	images.once.Do(func() {
		obj := testfixtures.Read(t, "elf/prog.bpf.o.gz")
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write(obj)
		w.Close()
		bz := testfixtures.BzImage(gz.Bytes())
		deb := testfixtures.DebPackage(t, map[string][]byte{"boot/vmlinuz-6.1.0-x": bz}, []string{"boot/vmlinuz-6.1.0-x"})
		images.bz, images.deb, images.obj = bz, deb, obj
	})
	if images.deb == nil {
		t.Fatal("the kernel images could not be made (see the first test that tried)")
	}
	return images.bz, images.deb, images.obj
}

// images is what kernelImages made.
var images struct {
	once         sync.Once
	bz, deb, obj []byte
}

// TestKernelImageStdin: "-" reads an x86 bzImage and a Debian package
// like a file does, for every command that opens FILE (btf dump, layout,
// diff), and for --package; under the same input limit.
func TestKernelImageStdin(t *testing.T) {
	t.Parallel()
	bz, deb, obj := kernelImages(t)
	dir := t.TempDir()
	objPath := filepath.Join(dir, "prog.bpf.o")
	if err := os.WriteFile(objPath, obj, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := kmeta(t, nil, "btf", "dump", objPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, img := range map[string][]byte{"bzImage": bz, "deb": deb} {
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{{"btf", "dump", "-"}, {"btf", "dump", "-", "--max-input", "1M"}} {
				got, err := kmeta(t, img, args...)
				if err != nil || got != want {
					t.Fatalf("%v: %v; output differs from the object's dump: %d bytes against %d", args, err, len(got), len(want))
				}
			}
			if out, err := kmeta(t, img, "btf", "diff", objPath, "-"); err != nil || out != "" {
				t.Errorf("btf diff OBJ -: %v, %q; want no difference", err, out)
			}
			if _, err := kmeta(t, img, "btf", "layout", "-"); err != nil {
				t.Errorf("btf layout -: %v", err)
			}
			_, err := kmeta(t, img, "btf", "dump", "-", "--max-input", "4K")
			if err == nil || !strings.Contains(err.Error(), "limit") || !strings.Contains(err.Error(), "--max-input") {
				t.Errorf("over the limit: %v; want an error naming the limit and --max-input", err)
			}
		})
	}
	out, err := kmeta(t, deb, "btf", "modules", "--package", "-")
	if err != nil || !strings.HasPrefix(out, "MODULE") {
		t.Errorf("btf modules --package -: %v, %q", err, out)
	}
}
