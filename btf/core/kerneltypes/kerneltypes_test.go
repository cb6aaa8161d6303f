package kerneltypes

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/debpackage"
	"github.com/kmeta-dev/kmeta/kernel"
	"github.com/kmeta-dev/kmeta/kimage"
)

// openObjects opens testdata objects, closed when the test ends.
func openObjects(tb testing.TB, rels ...string) []core.Object {
	tb.Helper()
	var objs []core.Object
	for _, rel := range rels {
		obj, err := bpfelf.Open(context.Background(), testfixtures.Path(tb, rel), bpfelf.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { obj.Close() })
		objs = append(objs, obj.CORE())
	}
	return objs
}

func marshal(tb testing.TB, b *builder.Builder) []byte {
	tb.Helper()
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// TestMinimalBpftool: on a fake sysfs of the Debian 6.1 kernel, the
// vmlinux part of Minimal is bpftool gen min_core_btf's output for the
// same objects (the goldens of btf/core's tests), and no module is used
// when vmlinux has every name, or when no module has a missing one
// (types.bpf.o relocates a type no kernel has).
func TestMinimalBpftool(t *testing.T) {
	dir := fakeSysfs(t, only("kvm", "xfs"), nil)
	for _, tc := range []struct {
		golden string
		objs   []string
	}{
		{"core/bpftool/prog.debian-6.1.min.btf", []string{"elf/prog.bpf.o.gz"}},
		{"core/bpftool/all.debian-6.1.min.btf", []string{"elf/prog.bpf.o.gz", "core/fields.bpf.o.gz", "core/types.bpf.o.gz", "core/matches.bpf.o.gz"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			ct, err := Minimal(context.Background(), kernel.Options{Sysfs: dir}, openObjects(t, tc.objs...)...)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := marshal(t, ct.Vmlinux), testfixtures.Read(t, tc.golden); !bytes.Equal(got, want) {
				t.Errorf("vmlinux: %d bytes, bpftool's %d, and they differ", len(got), len(want))
			}
			if len(ct.Modules) != 0 || len(ct.Failed) != 0 {
				t.Errorf("modules %v, failed %v, want none", ct.Modules, ct.Failed)
			}
		})
	}
}

// TestMinimalModule: module.bpf.o relocates kvm_mmu_page, which only
// kvm has: kvm gets its own minimal BTF, the vmlinux types of the
// relocations with kvm's, and xfs, which lacks the name, none.
func TestMinimalModule(t *testing.T) {
	dir := fakeSysfs(t, only("kvm", "xfs"), nil)
	objs := openObjects(t, "core/module.bpf.o.gz")
	ct, err := Minimal(context.Background(), kernel.Options{Sysfs: dir}, objs...)
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Modules) != 1 || ct.Modules[0].Module != "kvm" {
		t.Fatalf("modules %v, want kvm only", ct.Modules)
	}
	spec := func(b *builder.Builder) *btf.Spec {
		s, err := btf.Parse(marshal(t, b), btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	vm, kvm := spec(ct.Vmlinux), spec(ct.Modules[0].Types)
	if _, err := vm.FindOne("kvm_mmu_page", btf.FindOptions{}); !errors.Is(err, btf.ErrNotFound) {
		t.Errorf("vmlinux part: kvm_mmu_page: %v, want not found", err)
	}
	if _, err := kvm.FindOne("kvm_mmu_page", btf.FindOptions{Kind: btf.KindStruct}); err != nil {
		t.Errorf("kvm part: %v", err)
	}
	// The vmlinux types the relocations use are in both.
	for _, typ := range vm.All() {
		if typ.Name() == "" {
			continue
		}
		if _, err := kvm.Find(typ.Name(), btf.FindOptions{Kind: typ.Kind()}); err != nil {
			t.Errorf("kvm part lacks vmlinux's %v: %v", typ, err)
		}
	}
}

// TestMinimalNoVmlinux: no BTF anywhere is kernel.ErrNoVmlinux.
func TestMinimalNoVmlinux(t *testing.T) {
	objs := openObjects(t, "elf/prog.bpf.o.gz")
	_, err := Minimal(context.Background(), kernel.Options{Root: t.TempDir(), Release: "6.1.0-test"}, objs...)
	if !errors.Is(err, kernel.ErrNoVmlinux) {
		t.Fatalf("got %v, want kernel.ErrNoVmlinux", err)
	}
}

// TestMinimalAmbiguous: a relocation that libbpf refuses (ambig.bpf.o
// on Debian 6.1) is Minimal's error, not a partial result.
func TestMinimalAmbiguous(t *testing.T) {
	dir := fakeSysfs(t, only("kvm"), nil)
	ct, err := Minimal(context.Background(), kernel.Options{Sysfs: dir}, openObjects(t, "core/ambig.bpf.o.gz")...)
	if err == nil {
		t.Fatalf("got %d types, want an error", ct.Vmlinux.NumTypes())
	}
	t.Log(err)
}

// TestMinimalNoModules: a kernel without module BTF, and an object
// relocating a type that vmlinux lacks (types.bpf.o): no module, no error.
func TestMinimalNoModules(t *testing.T) {
	dir := fakeSysfs(t, only(), nil)
	ct, err := Minimal(context.Background(), kernel.Options{Sysfs: dir}, openObjects(t, "core/types.bpf.o.gz")...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := marshal(t, ct.Vmlinux), testfixtures.Read(t, "core/bpftool/types.debian-6.1.min.btf"); !bytes.Equal(got, want) {
		t.Errorf("vmlinux: %d bytes, bpftool's %d, and they differ", len(got), len(want))
	}
	if len(ct.Modules) != 0 || len(ct.Failed) != 0 {
		t.Errorf("modules %v, failed %v, want none", ct.Modules, ct.Failed)
	}
}

// TestMinimalFailedModule: a module whose BTF cannot be read is
// reported in Failed, and the types come from vmlinux alone.
func TestMinimalFailedModule(t *testing.T) {
	dir := fakeSysfs(t, only("kvm", "xfs"), func(name string, b []byte) []byte {
		if name == "kvm" {
			return b[:40]
		}
		return b
	})
	ct, err := Minimal(context.Background(), kernel.Options{Sysfs: dir}, openObjects(t, "core/module.bpf.o.gz")...)
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Modules) != 0 || len(ct.Failed) != 1 || ct.Failed[0].Module != "kvm" {
		t.Errorf("modules %v, failed %v, want kvm failed", ct.Modules, ct.Failed)
	}
}

// TestMinimalConcurrent: calls on the same objects from several
// goroutines give bpftool's bytes each (under -race in CI).
func TestMinimalConcurrent(t *testing.T) {
	dir := fakeSysfs(t, only("kvm"), nil)
	objs := openObjects(t, "elf/prog.bpf.o.gz", "core/fields.bpf.o.gz", "core/types.bpf.o.gz", "core/matches.bpf.o.gz")
	want := testfixtures.Read(t, "core/bpftool/all.debian-6.1.min.btf")
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			ct, err := Minimal(context.Background(), kernel.Options{Sysfs: dir}, objs...)
			if err == nil {
				var got []byte
				if got, err = ct.Vmlinux.Marshal(builder.Options{}); err == nil && !bytes.Equal(got, want) {
					err = errors.New("not bpftool's bytes")
				}
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestMinimalPackage: on a kernel package (kernel.Options.Package), the
// types are those of the same kernel's sysfs: bpftool's bytes for
// vmlinux, and kvm's for module.bpf.o.
func TestMinimalPackage(t *testing.T) {
	pkg, err := kimage.OpenPackage(context.Background(), debpackage.DebianKernelPackage(t, []string{"kvm"}), kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Options{Package: pkg, Root: t.TempDir()} // Root: nothing of this machine's
	ct, err := Minimal(context.Background(), k, openObjects(t, "elf/prog.bpf.o.gz")...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := marshal(t, ct.Vmlinux), testfixtures.Read(t, "core/bpftool/prog.debian-6.1.min.btf"); !bytes.Equal(got, want) {
		t.Errorf("vmlinux: %d bytes, bpftool's %d, and they differ", len(got), len(want))
	}
	mod := openObjects(t, "core/module.bpf.o.gz")
	fromPkg, err := Minimal(context.Background(), k, mod...)
	if err != nil {
		t.Fatal(err)
	}
	fromSysfs, err := Minimal(context.Background(), kernel.Options{Sysfs: fakeSysfs(t, only("kvm", "xfs"), nil)}, mod...)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromPkg.Modules) != 1 || fromPkg.Modules[0].Module != "kvm" {
		t.Fatalf("modules %v, want kvm", fromPkg.Modules)
	}
	if !bytes.Equal(marshal(t, fromPkg.Modules[0].Types), marshal(t, fromSysfs.Modules[0].Types)) {
		t.Error("kvm's types from the package differ from the sysfs'")
	}
}

// fakeSysfs builds the Debian 6.1 fake sysfs with the modules keep keeps,
// edited by edit (see testfixtures.FakeSysfs).
func fakeSysfs(tb testing.TB, keep func(string) bool, edit func(name string, b []byte) []byte) string {
	tb.Helper()
	return testfixtures.FakeSysfs(tb, keep, edit)
}

// only returns a keep function for fakeSysfs that keeps the named modules.
func only(names ...string) func(string) bool {
	return func(n string) bool { return slices.Contains(names, n) }
}
