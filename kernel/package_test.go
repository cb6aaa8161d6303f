package kernel

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// debianPackage builds a Debian kernel package of the Debian 6.1 fixtures:
// a gzip bzImage whose kernel holds the vmlinux BTF, and the modules named
// (all, for nil) as ELF .ko files with their BTF, in tar order modules
// first, so that they wait for the kernel. It returns the package's path.
// Its data.tar is zstd and the kernel gzip's fastest: kimage's tests read
// xz packages; building megabytes of one took these tests 1.3 s of CPU.
func debianPackage(tb testing.TB, names []string) string {
	tb.Helper()
	vmlinux, err := builder.ELF(testfixtures.Read(tb, "btf/debian-6.1.btf.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Write(vmlinux)
	w.Close()
	files := map[string][]byte{"boot/vmlinuz-6.1.0-test": testfixtures.BzImage(gz.Bytes())}
	var order []string
	mods := testfixtures.Modules(tb)
	if names == nil {
		for n := range mods {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	for _, n := range names {
		ko, err := builder.ELF(mods[n])
		if err != nil {
			tb.Fatal(err)
		}
		p := fmt.Sprintf("lib/modules/6.1.0-test/kernel/x/%s.ko", n)
		files[p] = ko
		order = append(order, p)
	}
	order = append(order, "boot/vmlinuz-6.1.0-test")
	path := filepath.Join(tb.TempDir(), "linux-image-6.1.0-test.deb")
	if err := os.WriteFile(path, testfixtures.DebPackageZstd(tb, files, order), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestPackageAsKernel: a Cache on a kernel package finds what a Cache on
// the same kernel's sysfs finds, for names in vmlinux, in one module, in
// several, and in none; with and without workers.
func TestPackageAsKernel(t *testing.T) {
	names := []string{"af_key", "btrfs", "kvm", "xfs", "tls", "vport-gre", "mlx5_core"}
	pkg, err := kimage.OpenPackage(context.Background(), debianPackage(t, names), kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pkg.Modules(); !slices.Equal(got, slices.Sorted(slices.Values(names))) {
		t.Fatalf("package modules %v, want %v", got, names)
	}
	sysfs := NewCache(Options{Sysfs: fakeSysfs(t, only(names...), nil)})
	defer sysfs.Close()
	for _, workers := range []int{0, 4} {
		c := NewCache(Options{Package: pkg, Workers: workers})
		for _, name := range []string{"task_struct", "xfs_mount", "kvm_vcpu", "pfkey_sock", "no_such_type", "tls_context"} {
			for _, kind := range []btf.Kind{btf.KindUnknown, btf.KindStruct} {
				want := findPlaces(t, sysfs, name, kind)
				got := findPlaces(t, c, name, kind)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("workers %d, %s (%v): package against sysfs (-want +got):\n%s", workers, name, kind, diff)
				}
			}
		}
		c.Close()
	}
}

// findPlaces runs Cache.Find and returns its matches as "module: kind name".
func findPlaces(t *testing.T, c *Cache, name string, kind btf.Kind) []string {
	t.Helper()
	h, res, err := c.Find(name, FindOptions{Kind: kind})
	if errors.Is(err, btf.ErrNotFound) {
		return []string{"not found"}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	var out []string
	for _, m := range res.Matches {
		out = append(out, fmt.Sprintf("%s: [%d] %v %s", m.Module, m.Type.ID(), m.Type.Kind(), m.Type.Name()))
	}
	return out
}
