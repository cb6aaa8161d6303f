package dedup_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestCompatNames(t *testing.T) {
	for _, c := range []dedup.Compat{dedup.CompatLibbpf18, dedup.CompatLibbpf11} {
		got, err := dedup.ParseCompat(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCompat(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
	if _, err := dedup.ParseCompat("libbpf-0.9"); err == nil || !bytes.HasPrefix([]byte(err.Error()), []byte("dedup: ")) {
		t.Errorf("ParseCompat(libbpf-0.9): %v, want a dedup: error", err)
	}
	if s := dedup.Compat(7).String(); s != "Compat(7)" {
		t.Errorf("Compat(7).String() = %q", s)
	}
}

// TestSplitModules deduplicates two modules on the committed vmlinux
// through the public API: once with Specs, once with a Merger per mode,
// and checks that the Merger is single-use.
func TestSplitModules(t *testing.T) {
	vm, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	var specs []*btf.Spec
	for _, name := range []string{"kvm", "xfs"} {
		specs = append(specs, testfixtures.Spec(t, mods[name], vm))
	}
	base, err := dedup.NewBase(vm, dedup.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if base.Spec() != vm {
		t.Fatal("Base.Spec is not the base's Spec")
	}
	want, err := dedup.Specs(base, specs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []dedup.Compat{dedup.CompatLibbpf18, dedup.CompatLibbpf11} {
		m := dedup.New(base, dedup.Options{Compat: c})
		for _, s := range specs {
			if err := m.AddSpec(s); err != nil {
				t.Fatal(err)
			}
		}
		if m.NumTypes() != specs[0].NumTypes()+specs[1].NumTypes() {
			t.Errorf("%v: NumTypes %d", c, m.NumTypes())
		}
		got, err := m.Dedup(builder.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c == dedup.CompatLibbpf18 && !bytes.Equal(got, want) {
			t.Errorf("Merger and Specs differ")
		}
		if _, err := btf.Parse(got, btf.Options{Base: vm}); err != nil {
			t.Errorf("%v: output does not parse: %v", c, err)
		}
		if err := m.AddSpec(specs[0]); !errors.Is(err, dedup.ErrDone) {
			t.Errorf("%v: AddSpec after Dedup: %v, want ErrDone", c, err)
		}
	}
}

// TestPrepared: inputs prepared on many goroutines at once and appended in
// order give AddSpec's bytes.
func TestPrepared(t *testing.T) {
	vm, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	var specs []*btf.Spec
	for _, name := range []string{"kvm", "xfs", "kvm", "xfs"} {
		specs = append(specs, testfixtures.Spec(t, mods[name], vm))
	}
	base, err := dedup.NewBase(vm, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := dedup.Specs(base, specs...)
	if err != nil {
		t.Fatal(err)
	}
	m := dedup.New(base, dedup.Options{})
	prepared := make([]*dedup.Prepared, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() { prepared[i], errs[i] = m.Prepare(context.Background(), s) })
	}
	wg.Wait()
	for i, p := range prepared {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if err := m.AddPrepared(p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("prepared inputs deduplicate differently from AddSpec's")
	}
}
