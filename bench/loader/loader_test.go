package loader

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/btf/core/kerneltypes"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kernel"
)

// objects are the CO-RE objects of testdata/loader and the shared
// fixtures' mincore object (testdata/elf/prog.bpf.o.gz of the kmeta
// module), as files: objectPaths writes the compressed one out.
var objects = []string{"kprobe", "sched", "net", "tpbtf", "mincore"}

// objectPaths returns the file of each of names, in a temporary directory
// for mincore.
func objectPaths(tb testing.TB, names ...string) []string {
	tb.Helper()
	var paths []string
	for _, n := range names {
		if n != "mincore" {
			paths = append(paths, filepath.Join("..", "testdata", "loader", n+".bpf.o"))
			continue
		}
		p := filepath.Join(tb.TempDir(), "mincore.bpf.o")
		if err := os.WriteFile(p, testfixtures.Read(tb, "elf/prog.bpf.o.gz"), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// fixups returns cilium/ebpf's CO-RE fixups for every program of the
// object at path against targets, "program: fixup" in program name and
// instruction order: what its loader patches into the instructions.
func fixups(tb testing.TB, path string, targets []*cbtf.Spec) []string {
	tb.Helper()
	spec, err := ebpf.LoadCollectionSpec(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(spec.Programs)) {
		var relos []*cbtf.CORERelocation
		iter := spec.Programs[name].Instructions.Iterate()
		for iter.Next() {
			if r := cbtf.CORERelocationMetadata(iter.Ins); r != nil {
				relos = append(relos, r)
			}
		}
		var b cbtf.Builder
		fs, err := cbtf.CORERelocate(relos, targets, binary.LittleEndian, b.Add)
		if err != nil {
			tb.Fatalf("%s %s: %v", path, name, err)
		}
		for i := range fs {
			out = append(out, name+": "+fs[i].String())
		}
	}
	return out
}

// ciliumSpec reads BTF with cilium/ebpf, split on base if base is not nil.
func ciliumSpec(tb testing.TB, raw []byte, base *cbtf.Spec) *cbtf.Spec {
	tb.Helper()
	var s *cbtf.Spec
	var err error
	if base != nil {
		s, err = cbtf.LoadSplitSpecFromReader(bytes.NewReader(raw), base)
	} else {
		s, err = cbtf.LoadSpecFromReader(bytes.NewReader(raw))
	}
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestFixupsAsWholeKernel: for every object, cilium/ebpf's own CO-RE
// relocation gives the same fixups against kmeta's minimal BTF as against
// the whole kernel BTF, on the Debian 6.1 and host 6.18 kernels of
// testdata (fake sysfs trees, so that kerneltypes.Minimal reads
// them as it reads the running kernel's). The oracle is cilium/ebpf's
// CORERelocate on the full BTF, which is what its loader does by default.
func TestFixupsAsWholeKernel(t *testing.T) {
	for _, kern := range []string{testfixtures.DebianVmlinux, testfixtures.HostVmlinux} {
		raw := testfixtures.Read(t, kern)
		sysfs := fakeSysfs(t, raw, nil)
		full := []*cbtf.Spec{ciliumSpec(t, raw, nil)}
		for i, path := range objectPaths(t, objects...) {
			t.Run(filepath.Base(kern)+"/"+objects[i], func(t *testing.T) {
				opts, err := ProgramOptions(context.Background(), kernel.Options{Sysfs: sysfs}, path)
				if err != nil {
					t.Fatal(err)
				}
				if len(opts.ExtraRelocationTargets) != 0 {
					t.Errorf("%d module targets, want none", len(opts.ExtraRelocationTargets))
				}
				want := fixups(t, path, full)
				got := fixups(t, path, []*cbtf.Spec{opts.KernelTypes})
				diffLines(t, want, got)
			})
		}
	}
}

// TestFixupsModule: an object relocating a type only the Debian kernel's
// kvm module has (btf/core's module.bpf.o) gets the same fixups from the
// minimal vmlinux and kvm BTF as cilium/ebpf's default targets give: the
// whole vmlinux and every module, here kvm and xfs.
func TestFixupsModule(t *testing.T) {
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	mods := map[string][]byte{}
	for file, b := range testfixtures.Modules(t) {
		if n := testfixtures.SysfsName(file); n == "kvm" || n == "xfs" {
			mods[n] = b
		}
	}
	sysfs := fakeSysfs(t, raw, mods)
	base := ciliumSpec(t, raw, nil)
	full := []*cbtf.Spec{base, ciliumSpec(t, mods["kvm"], base), ciliumSpec(t, mods["xfs"], base)}
	path := filepath.Join(t.TempDir(), "module.bpf.o")
	if err := os.WriteFile(path, testfixtures.Read(t, "core/module.bpf.o.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, err := ProgramOptions(context.Background(), kernel.Options{Sysfs: sysfs}, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.ExtraRelocationTargets) != 1 {
		t.Fatalf("%d module targets, want 1 (kvm)", len(opts.ExtraRelocationTargets))
	}
	want := fixups(t, path, full)
	got := fixups(t, path, append([]*cbtf.Spec{opts.KernelTypes}, opts.ExtraRelocationTargets...))
	diffLines(t, want, got)
	if !slices.ContainsFunc(want, func(s string) bool { return !strings.Contains(s, "poison") && strings.Contains(s, "byte_off") }) {
		t.Errorf("no field relocation resolved: %v", want)
	}
}

// diffLines reports the fixups that differ between the whole kernel's
// (want) and the minimal BTF's (got).
func diffLines(tb testing.TB, want, got []string) {
	tb.Helper()
	if len(want) == 0 {
		tb.Error("no fixups")
	}
	if len(want) != len(got) {
		tb.Fatalf("%d fixups, %d on the whole kernel", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			tb.Errorf("fixup %d: %s, on the whole kernel %s", i, got[i], want[i])
		}
	}
}

// fakeSysfs writes DIR/kernel/btf/vmlinux and the modules and returns
// DIR.
func fakeSysfs(tb testing.TB, vmlinux []byte, modules map[string][]byte) string {
	tb.Helper()
	dir := tb.TempDir()
	btfDir := filepath.Join(dir, "kernel", "btf")
	if err := os.MkdirAll(btfDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	modules = maps.Clone(modules)
	if modules == nil {
		modules = map[string][]byte{}
	}
	modules["vmlinux"] = vmlinux
	for name, b := range modules {
		if err := os.WriteFile(filepath.Join(btfDir, name), b, 0o444); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// TestLoadRunningKernel: every object loads into the running kernel with
// kmeta's minimal types as KernelTypes (the verifier accepts every
// program), and each program is the one cilium/ebpf's default load makes:
// the kernel's tag of a program is a hash of its instructions after CO-RE
// (map references zeroed), so equal tags mean equal relocations.
func TestLoadRunningKernel(t *testing.T) {
	needBPF(t)
	for i, path := range objectPaths(t, objects...) {
		t.Run(objects[i], func(t *testing.T) {
			opts, err := ProgramOptions(context.Background(), kernel.Options{}, path)
			if err != nil {
				t.Fatal(err)
			}
			kmeta := load(t, path, ebpf.CollectionOptions{Programs: opts})
			defer kmeta.Close()
			cilium := load(t, path, ebpf.CollectionOptions{})
			defer cilium.Close()
			if len(kmeta.Programs) == 0 {
				t.Fatal("no programs")
			}
			for name, p := range kmeta.Programs {
				got, want := tag(t, p), tag(t, cilium.Programs[name])
				if got != want {
					t.Errorf("%s: tag %s, cilium's default load %s", name, got, want)
				}
			}
		})
	}
}

// load loads the collection of the object at path.
func load(tb testing.TB, path string, opts ebpf.CollectionOptions) *ebpf.Collection {
	tb.Helper()
	spec, err := ebpf.LoadCollectionSpec(path)
	if err != nil {
		tb.Fatal(err)
	}
	coll, err := ebpf.NewCollectionWithOptions(spec, opts)
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		tb.Fatalf("%s: the verifier refused it: %+v", path, ve)
	}
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return coll
}

func tag(tb testing.TB, p *ebpf.Program) string {
	tb.Helper()
	info, err := p.Info()
	if err != nil {
		tb.Fatal(err)
	}
	return info.Tag
}

// TestKernelTypesAsBpftool: the KernelTypes of all the objects on the
// running kernel are bpftool gen min_core_btf's output for them, byte
// for byte (the BTF bytes cilium/ebpf reads back; kernel's own tests
// compare with bpftool's goldens on fixture kernels).
func TestKernelTypesAsBpftool(t *testing.T) {
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("bpftool is not installed (apt-get install bpftool)")
	}
	if _, err := os.Stat(testfixtures.RunningKernelBTF); err != nil {
		t.Skipf("no kernel BTF here: %v", err)
	}
	paths := objectPaths(t, objects...)
	out := filepath.Join(t.TempDir(), "min.btf")
	args := append([]string{"gen", "min_core_btf", testfixtures.RunningKernelBTF, out}, paths...)
	if b, err := exec.Command(bpftool, args...).CombinedOutput(); err != nil {
		t.Fatalf("bpftool %v: %v\n%s", args, err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	objs := make([]core.Object, 0, len(paths))
	for _, p := range paths {
		obj, err := bpfelf.Open(context.Background(), p, bpfelf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Close()
		objs = append(objs, obj.CORE())
	}
	ct, err := kerneltypes.Minimal(context.Background(), kernel.Options{}, objs...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ct.Vmlinux.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("kmeta's %d bytes differ from bpftool's %d", len(got), len(want))
	}
}

// TestProgramOptionsErrors: a missing object, and an object whose
// relocation libbpf refuses on the target (btf/core's ambig.bpf.o on
// Debian 6.1: a field at two offsets), give errors, not options.
func TestProgramOptionsErrors(t *testing.T) {
	sysfs := fakeSysfs(t, testfixtures.Read(t, testfixtures.DebianVmlinux), nil)
	k := kernel.Options{Sysfs: sysfs}
	if _, err := ProgramOptions(context.Background(), k, filepath.Join(t.TempDir(), "missing.bpf.o")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing object: %v, want fs.ErrNotExist", err)
	}
	ambig := filepath.Join(t.TempDir(), "ambig.bpf.o")
	if err := os.WriteFile(ambig, testfixtures.Read(t, "core/ambig.bpf.o.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	if opts, err := ProgramOptions(context.Background(), k, ambig); err == nil {
		t.Errorf("ambiguous relocation: got options %+v, want an error", opts)
	}
}
