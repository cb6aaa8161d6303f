package kimage_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestPackageModules: modules without BTF are left out, a module whose BTF
// is corrupt is listed with its error, a module met twice counts once, and
// the package's vmlinux BTF is read whatever the tar order.
func TestPackageModules(t *testing.T) {
	demo, err := os.ReadFile(demoPackage)
	if err != nil {
		t.Fatal(err)
	}
	good, err := kimage.ReadPackage(context.Background(), bytes.NewReader(demo), kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vmlinuxRaw, err := good.File("vmlinux")
	if err != nil {
		t.Fatal(err)
	}
	demoRaw, err := good.File("demo")
	if err != nil {
		t.Fatal(err)
	}
	vmlinuxELF, err := builder.ELF(vmlinuxRaw)
	if err != nil {
		t.Fatal(err)
	}
	demoELF, err := builder.ELF(demoRaw)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(demoELF)
	i := bytes.Index(corrupt, demoRaw)
	corrupt[i] = 0 // the BTF magic
	noBTF := bytes.Replace(bytes.Clone(demoELF), []byte(".BTF"), []byte(".XYZ"), 1)

	files := map[string][]byte{
		"lib/modules/6.1.0-t/kernel/a/demo.ko":    demoELF,
		"lib/modules/6.1.0-t/kernel/b/demo.ko":    corrupt, // a second demo: ignored
		"lib/modules/6.1.0-t/kernel/c/broken.ko":  corrupt,
		"lib/modules/6.1.0-t/kernel/d/nobtf.ko":   noBTF,
		"usr/share/doc/linux-image/changelog.gz":  []byte("not a module"),
		"boot/vmlinuz-6.1.0-t":                    bzip(t, vmlinuxELF),
		"lib/modules/6.1.0-t/kernel/e/late.ko.gz": gzipped(t, demoELF),
	}
	order := []string{"lib/modules/6.1.0-t/kernel/a/demo.ko", "lib/modules/6.1.0-t/kernel/b/demo.ko",
		"lib/modules/6.1.0-t/kernel/c/broken.ko", "lib/modules/6.1.0-t/kernel/d/nobtf.ko",
		"usr/share/doc/linux-image/changelog.gz", "boot/vmlinuz-6.1.0-t", "lib/modules/6.1.0-t/kernel/e/late.ko.gz"}
	path := filepath.Join(t.TempDir(), "p.deb")
	if err := os.WriteFile(path, testfixtures.DebPackage(t, files, order), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg, err := kimage.OpenPackage(context.Background(), path, kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pkg.Modules(), []string{"broken", "demo", "late"}; !slices.Equal(got, want) {
		t.Fatalf("modules %v, want %v", got, want)
	}
	vmlinux, err := pkg.Open("vmlinux", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer vmlinux.Close()
	for _, name := range []string{"demo", "late"} {
		s, err := pkg.Open(name, vmlinux)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := s.FindOne("demo_dev", btf.FindOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		s.Close()
	}
	if _, err := pkg.Open("broken", vmlinux); err == nil || !strings.Contains(err.Error(), "module broken: ") {
		t.Errorf("broken: %v, want the module's error", err)
	}
	if _, err := pkg.File("nobtf"); !errors.Is(err, kimage.ErrNoModule) {
		t.Errorf("nobtf: %v, want ErrNoModule", err)
	}
}

// TestPackageErrors: no kernel image, not a package, over the limit.
func TestPackageErrors(t *testing.T) {
	ctx := context.Background()
	noKernel := testfixtures.DebPackage(t, map[string][]byte{"etc/x": []byte("x")}, []string{"etc/x"})
	if _, err := kimage.ReadPackage(ctx, bytes.NewReader(noKernel), kimage.Options{}); err == nil || !strings.Contains(err.Error(), "vmlinuz") {
		t.Errorf("no kernel: %v", err)
	}
	if _, err := kimage.ReadPackage(ctx, strings.NewReader("!<arch>\nnot a package"), kimage.Options{}); err == nil {
		t.Error("not a package: no error")
	}
	demo, err := os.ReadFile(demoPackage)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kimage.ReadPackage(ctx, bytes.NewReader(demo), kimage.Options{MaxSize: 100}); !errors.Is(err, btf.ErrTooLarge) {
		t.Errorf("over the limit: %v, want btf.ErrTooLarge", err)
	}
	// OpenBTF and ReadBTF read the package's kernel BTF, or anything btf
	// reads.
	s, err := kimage.ReadBTF(ctx, bytes.NewReader(demo), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.NumTypes() != 3 {
		t.Errorf("ReadBTF of the package: %d types, want 3", s.NumTypes())
	}
	s.Close()
	s, err = kimage.OpenBTF(ctx, "../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func bzip(t *testing.T, vmlinux []byte) []byte { return testfixtures.BzImage(gzipped(t, vmlinux)) }

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// TestPackageLimits reads packages that would make OpenPackage keep
// without bound what their entries cost (issue 37, red team six): more
// module files than a kernel has, 200,000 of which peaked at 114 MB, and
// paths or names longer than a file system holds, 2,000 of 60 KB at
// 393 MB. Each is refused in one line naming what is over.
func TestPackageLimits(t *testing.T) {
	ctx := context.Background()
	kernel := []byte("not read: the limits come first")
	many := map[string][]byte{"boot/vmlinuz-1": kernel}
	order := []string{}
	for i := range 1<<16 + 1 {
		name := fmt.Sprintf("lib/modules/1/kernel/m%d.ko", i)
		many[name], order = nil, append(order, name)
	}
	long := "lib/modules/1/kernel/" + strings.Repeat("d/", 2100) + "m.ko"
	wide := "lib/modules/1/kernel/" + strings.Repeat("m", 300) + ".ko"
	for name, tc := range map[string]struct {
		files map[string][]byte
		order []string
		want  string
	}{
		"modules":   {many, append(order, "boot/vmlinuz-1"), "more than 65536 modules in the package, at lib/modules/1/kernel/m65536.ko"},
		"long path": {map[string][]byte{long: nil}, []string{long}, "a path of 4227 bytes"},
		"long name": {map[string][]byte{wide: nil}, []string{wide}, "a module file name of 303 bytes"},
	} {
		deb := testfixtures.DebPackageZstd(t, tc.files, tc.order)
		_, err := kimage.ReadPackage(ctx, bytes.NewReader(deb), kimage.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
