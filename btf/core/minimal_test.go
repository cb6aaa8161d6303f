package core_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/btf/ext"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func minimal(tb testing.TB, k string, objs ...string) []byte {
	tb.Helper()
	var list []core.Object
	for _, o := range objs {
		list = append(list, object(tb, o))
	}
	b, err := core.TypesFor(context.Background(), core.NewTarget(kernel(tb, k)), list)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// minCases are the bpftool min_core_btf goldens: each object alone, and
// all four at once ("all").
func minCases() map[string][]string {
	m := map[string][]string{"all": {"prog", "fields", "types", "matches"}}
	for _, o := range objectOrder {
		m[o] = []string{o}
	}
	return m
}

// genMinCases are the bpftool goldens of the generated objects: each
// alone, and the four at once.
func genMinCases() map[string][]string {
	m := map[string][]string{"all": generated}
	for _, o := range generated {
		m[o] = []string{o}
	}
	return m
}

// TestMinimalBpftoolGenerated: TypesFor writes bpftool's bytes for the
// generated objects.
func TestMinimalBpftoolGenerated(t *testing.T) {
	for name, objs := range genMinCases() {
		for k := range kernels {
			t.Run(name+"/"+k, func(t *testing.T) {
				want := testfixtures.Read(t, "core/gen/bpftool/"+name+"."+k+".min.btf.gz")
				if got := minimal(t, k, objs...); !bytes.Equal(got, want) {
					t.Errorf("differs from bpftool:\n%s", diffDumps(t, want, got))
				}
			})
		}
	}
}

// TestMinimalBpftool: TypesFor writes the bytes bpftool gen min_core_btf
// (bpftool 7.1) wrote, for each object and for all of them together.
func TestMinimalBpftool(t *testing.T) {
	for name, objs := range minCases() {
		for k := range kernels {
			t.Run(name+"/"+k, func(t *testing.T) {
				want := testfixtures.Read(t, "core/bpftool/"+name+"."+k+".min.btf")
				got := minimal(t, k, objs...)
				if !bytes.Equal(got, want) {
					t.Errorf("minimal BTF differs from bpftool's:\n%s", diffDumps(t, want, got))
				}
			})
		}
	}
}

func diffDumps(tb testing.TB, want, got []byte) string {
	tb.Helper()
	ws, err := btf.Parse(want, btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	gs, err := btf.Parse(got, btf.Options{})
	if err != nil {
		return err.Error()
	}
	var w, g bytes.Buffer
	w.Write(testfixtures.RawDump(tb, ws, btf.ScopeAll))
	g.Write(testfixtures.RawDump(tb, gs, btf.ScopeAll))
	if bytes.Equal(w.Bytes(), g.Bytes()) {
		return "same raw dump, different bytes"
	}
	return "want:\n" + w.String() + "\ngot:\n" + g.String()
}

// TestMinimalResolvesSame: every relocation of every object resolves on
// the minimal BTF as on the full kernel BTF: the same value, or the same
// poisoning. target_type_id values are ids, renumbered in the minimal
// BTF: only whether they are 0 must agree.
func TestMinimalResolvesSame(t *testing.T) {
	for k := range kernels {
		for _, o := range slices.Concat(objectOrder, generated) {
			full, err := core.Resolve(context.Background(), object(t, o), core.NewTarget(kernel(t, k)))
			if err != nil {
				t.Fatal(err)
			}
			group := objectOrder
			if slices.Contains(generated, o) {
				group = generated
			}
			for name, objs := range map[string][]string{o: {o}, "all": group} {
				s, err := btf.Parse(minimal(t, k, objs...), btf.Options{})
				if err != nil {
					t.Fatal(err)
				}
				small, err := core.Resolve(context.Background(), object(t, o), core.NewTarget(s))
				if err != nil {
					t.Fatal(err)
				}
				for i := range full {
					f, m := full[i], small[i]
					if f.Kind == ext.TypeIDTarget {
						f.Value, m.Value = min(f.Value, 1), min(m.Value, 1)
					}
					if f.Value != m.Value || f.Poisoned != m.Poisoned || (f.Err == nil) != (m.Err == nil) || f.Skipped != m.Skipped {
						t.Errorf("%s on min(%s) of %s: %s relo #%d: full %d poisoned %v err %v; min %d poisoned %v err %v",
							o, name, k, f.Section, f.Index, f.Value, f.Poisoned, f.Err, m.Value, m.Poisoned, m.Err)
					}
				}
			}
		}
	}
}

// kernelAccepts loads raw BTF with bpf(BPF_BTF_LOAD), when root; it is a
// no-op elsewhere (the callers' other checks still run).
func kernelAccepts(tb testing.TB, raw []byte) {
	tb.Helper()
	if os.Geteuid() != 0 || bpfsys.Available() != nil {
		return
	}
	f, err := bpfsys.LoadBTF(raw)
	if err != nil {
		tb.Errorf("kernel rejects the minimal BTF: %v", err)
		return
	}
	f.Close()
}

// TestMinimalKernelLoads: the kernel accepts every minimal BTF.
func TestMinimalKernelLoads(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel acceptance needs root (CAP_BPF) for bpf(BPF_BTF_LOAD); skipped")
	}
	if err := bpfsys.Available(); err != nil {
		t.Skipf("bpf(BPF_BTF_LOAD) does not work here: %v", err)
	}
	for name, objs := range mergeCases(minCases(), genMinCases()) {
		for k := range kernels {
			t.Run(name+"/"+k, func(t *testing.T) { kernelAccepts(t, minimal(t, k, objs...)) })
		}
	}
}

// TestMinimalFails: where bpftool fails (an ambiguous relocation on
// Debian 6.1), TypesFor fails; where it does not, the bytes are its.
func TestMinimalFails(t *testing.T) {
	_, err := core.TypesFor(context.Background(), core.NewTarget(kernel(t, "debian-6.1")), []core.Object{object(t, "ambig")})
	if !errors.Is(err, core.ErrInvalid) {
		t.Errorf("ambig on debian-6.1: got %v, want ErrInvalid", err)
	}
	if got, want := minimal(t, "host-6.18", "ambig"), testfixtures.Read(t, "core/bpftool/ambig.host-6.18.min.btf"); !bytes.Equal(got, want) {
		t.Errorf("ambig on host-6.18 differs from bpftool's:\n%s", diffDumps(t, want, got))
	}
}

// openLazy opens the BTF in data as kmeta btf min --obj opens a target: lazily, with the
// objects' candidate search made while it is walked.
func openLazy(tb testing.TB, data []byte, objs []core.Object) *btf.Spec {
	tb.Helper()
	s, err := btf.Read(context.Background(), bytes.NewReader(data), btf.Options{Lazy: true, Flavors: core.TargetQuery(objs...)})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestMinimalLazyTarget: on a target opened lazily, with the candidate
// search made while opening, TypesFor writes bpftool's bytes too.
func TestMinimalLazyTarget(t *testing.T) {
	for name, objs := range minCases() {
		for k := range kernels {
			t.Run(name+"/"+k, func(t *testing.T) {
				var list []core.Object
				for _, o := range objs {
					list = append(list, object(t, o))
				}
				s := openLazy(t, testfixtures.Read(t, kernels[k]), list)
				b, err := core.TypesFor(context.Background(), core.NewTarget(s), list)
				if err != nil {
					t.Fatal(err)
				}
				got, err := b.Marshal(builder.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := testfixtures.Read(t, "core/bpftool/"+name+"."+k+".min.btf")
				if !bytes.Equal(got, want) {
					t.Errorf("minimal BTF differs from bpftool's:\n%s", diffDumps(t, want, got))
				}
			})
		}
	}
}

// TestMinimalLazyBadRecord: a record that the relocations reach and that
// refers to a type past the last makes TypesFor on the lazily opened target
// fail with the error Parse gives for it.
func TestMinimalLazyBadRecord(t *testing.T) {
	data := testfixtures.BreakMembers(t, testfixtures.Read(t, kernels["debian-6.1"]), "task_struct")
	_, want := btf.Parse(data, btf.Options{})
	if want == nil {
		t.Fatal("Parse accepts the broken task_struct")
	}
	objs := []core.Object{object(t, "prog")}
	_, err := core.TypesFor(context.Background(), core.NewTarget(openLazy(t, data, objs)), objs)
	var fe *btf.FormatError
	if !errors.As(err, &fe) || err.Error() != want.Error() {
		t.Fatalf("TypesFor: %v, want %v", err, want)
	}
}
