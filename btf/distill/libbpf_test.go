package distill_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/distill"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestLibbpf distills Debian 6.1's module BTFs with Distill and with
// libbpf's btf__distill_base (testdata/distillref.c, which
// KMETA_DISTILLREF names as a command with its libbpf argument: see its
// header), and compares the bytes: 105 modules, every one of the 1,121
// with KMETA_HEAVY=1. Debian 12's libbpf 1.1 has no btf__distill_base, so
// the test skips unless it is set.
func TestLibbpf(t *testing.T) {
	ref := strings.Fields(os.Getenv("KMETA_DISTILLREF"))
	if len(ref) == 0 {
		t.Skip("KMETA_DISTILLREF is not set: no libbpf 1.5 or later to compare with (see testdata/distillref.c)")
	}
	dir := t.TempDir()
	vmlinux := testfixtures.Spec(t, testfixtures.Read(t, testfixtures.DebianVmlinux), nil)
	basePath := filepath.Join(dir, "vmlinux.btf")
	if err := os.WriteFile(basePath, testfixtures.Read(t, testfixtures.DebianVmlinux), 0o644); err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range mods {
			if !yield(n) {
				return
			}
		}
	})
	if !testfixtures.Heavy() {
		names = slices.DeleteFunc(names, func(n string) bool { return len(n)%28 != 7 && n != "af_key" })
	}
	args := append(ref[1:len(ref):len(ref)], basePath, dir)
	for _, n := range names {
		p := filepath.Join(dir, n+".btf")
		if err := os.WriteFile(p, mods[n], 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	if out, err := exec.Command(ref[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", ref[0], err, out)
	}
	for _, n := range names {
		base, split, err := distill.Distill(testfixtures.Spec(t, mods[n], vmlinux))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		wantBase, _ := os.ReadFile(filepath.Join(dir, n+".base"))
		wantSplit, _ := os.ReadFile(filepath.Join(dir, n+".split"))
		if !bytes.Equal(base, wantBase) || !bytes.Equal(split, wantSplit) {
			t.Errorf("%s: differs from libbpf's btf__distill_base", n)
		}
	}
	t.Logf("%d modules identical to libbpf's", len(names))
}
