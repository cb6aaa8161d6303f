package core_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// memberOffset finds, independently of package core, the byte offset of
// member name of the struct called typ in s.
func memberOffset(tb testing.TB, s *btf.Spec, typ, name string) uint64 {
	tb.Helper()
	t, err := s.FindOne(typ, btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		tb.Fatal(err)
	}
	for _, m := range t.Members() {
		if m.Name() == name {
			return uint64(m.BitOffset / 8)
		}
	}
	tb.Fatalf("%s has no member %s", typ, name)
	return 0
}

// TestModuleTarget: relocations resolve against module BTF on its
// vmlinux as libbpf resolves them against a running kernel: vmlinux
// first, the module for what vmlinux lacks (kvm_mmu_page is only in
// kvm.ko); and the minimal BTF for module and vmlinux together keeps the
// results.
func TestModuleTarget(t *testing.T) {
	deb := kernel(t, "debian-6.1")
	kvm, err := btf.Parse(testfixtures.Modules(t)["kvm"], btf.Options{Base: deb})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := bpfelf.Parse(testfixtures.Read(t, "core/module.bpf.o.gz"))
	if err != nil {
		t.Fatal(err)
	}
	values := func(tg *core.Target) []any {
		rs, err := core.Resolve(context.Background(), obj.CORE(), tg)
		if err != nil {
			t.Fatal(err)
		}
		var out []any
		for _, r := range rs {
			if !r.OK() {
				out = append(out, "fails")
				continue
			}
			out = append(out, r.Value)
		}
		return out
	}
	mmuSize, err := kvm.SizeOf(mustFind(t, kvm, "kvm_mmu_page").ID())
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		memberOffset(t, deb, "kvm_vcpu", "vcpu_id"), memberOffset(t, deb, "kvm_vcpu", "cpu"), uint64(0),
		memberOffset(t, deb, "task_struct", "pid"), uint64(6536), uint64(0),
		memberOffset(t, kvm, "kvm_mmu_page", "unsync"), uint64(mmuSize),
	}
	both := core.NewTarget(deb, kvm)
	if diff := cmp.Diff(want, values(both)); diff != "" {
		t.Errorf("vmlinux + kvm (-want +got):\n%s", diff)
	}
	// vmlinux alone lacks kvm_mmu_page: its field is poisoned, its size 0.
	alone := values(core.NewTarget(deb))
	if alone[6] != "fails" || alone[7] != uint64(0) {
		t.Errorf("vmlinux alone: %v", alone)
	}
	b, err := core.TypesFor(context.Background(), both, []core.Object{obj.CORE()})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	small, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kernelAccepts(t, raw)
	if diff := cmp.Diff(want, values(core.NewTarget(small))); diff != "" {
		t.Errorf("minimal BTF (-want +got):\n%s", diff)
	}
}

func mustFind(tb testing.TB, s *btf.Spec, name string) btf.Type {
	tb.Helper()
	t, err := s.FindOne(name, btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// TestKernelTargetLazy: a kernel Target asks for its modules only when
// vmlinux lacks a name, and once.
func TestKernelTargetLazy(t *testing.T) {
	deb := kernel(t, "debian-6.1")
	kvm, err := btf.Parse(testfixtures.Modules(t)["kvm"], btf.Options{Base: deb})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	tg := core.NewKernelTarget(deb, func() []*btf.Spec { calls++; return []*btf.Spec{kvm} })
	if _, err := core.Resolve(context.Background(), object(t, "prog"), tg); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Fatalf("modules loaded for a program of vmlinux types")
	}
	obj, err := bpfelf.Parse(testfixtures.Read(t, "core/module.bpf.o.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		rs, err := core.Resolve(context.Background(), obj.CORE(), tg)
		if err != nil {
			t.Fatal(err)
		}
		if !rs[6].OK() {
			t.Errorf("kvm_mmu_page.unsync: %s", rs[6].Reason())
		}
	}
	if calls != 1 {
		t.Errorf("modules loaded %d times", calls)
	}
}
