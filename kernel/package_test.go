package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/debpackage"
	"github.com/kmeta-dev/kmeta/kimage"
)

// debianPackage builds a Debian kernel package of the Debian 6.1
// fixtures (testfixtures.DebianKernelPackage) and returns its path.
func debianPackage(tb testing.TB, names []string) string {
	tb.Helper()
	return debpackage.DebianKernelPackage(tb, names)
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
