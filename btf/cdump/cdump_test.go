package cdump_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// goldenModule is the Debian module whose "bpftool -B vmlinux" C dump is
// committed (see testdata/README.md).
const goldenModule = "kvm"

func moduleSpec(tb testing.TB, name string) *btf.Spec {
	tb.Helper()
	raw, ok := testfixtures.Modules(tb)[name]
	if !ok {
		tb.Fatalf("module %s not in %s", name, testfixtures.DebianModules)
	}
	return parse(tb, raw, debianSpec(tb))
}

func checkGolden(t *testing.T, s *btf.Spec, golden string) {
	t.Helper()
	want := testfixtures.Read(t, golden)
	got := dumpC(t, s, v71)
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from bpftool's %s (%d bytes, want %d): %s",
			golden, len(got), len(want), firstDiff(got, want))
	}
}

func TestGoldenHost(t *testing.T) {
	checkGolden(t, hostSpec(t), "bpftool/host-6.18.44.h.gz")
}

func TestGoldenDebian(t *testing.T) {
	checkGolden(t, debianSpec(t), "bpftool/debian-6.1.h.gz")
}

// TestGoldenModule checks split BTF: base and module types together, as
// "bpftool -B vmlinux btf dump file kvm format c" prints them.
func TestGoldenModule(t *testing.T) {
	checkGolden(t, moduleSpec(t, goldenModule), "bpftool/modules/"+goldenModule+".h.gz")
}

// TestAgainstBpftoolModules compares with the installed bpftool on the
// other golden modules, whose C dumps are not committed: af_key in the
// plain "go test", the others (vmlinux-sized, as each prints its base)
// with KMETA_HEAVY=1.
func TestAgainstBpftoolModules(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bpftool(t)
	base := testfixtures.Read(t, testfixtures.DebianVmlinux)
	for _, name := range testfixtures.DebianGoldenModules {
		if name == goldenModule {
			continue // TestGoldenModule has bpftool's output committed
		}
		t.Run(name, func(t *testing.T) {
			if name != "af_key" {
				testfixtures.SkipUnlessHeavy(t, "one more vmlinux-sized bpftool run")
			}
			raw := testfixtures.Modules(t)[name]
			want, err := bpftoolDump(t, raw, base)
			if err != nil {
				t.Fatal(err)
			}
			got := dumpC(t, parse(t, raw, parse(t, base, nil)), v71)
			if !bytes.Equal(got, want) {
				t.Fatalf("differs from bpftool: %s", firstDiff(got, want))
			}
		})
	}
}

// TestAgainstBpftoolRunningKernel compares with bpftool on the kernel this
// test runs on, when the goldens do not already cover its BTF.
func TestAgainstBpftoolRunningKernel(t *testing.T) {
	testfixtures.SkipIfHostFixture(t)
	const path = testfixtures.RunningKernelBTF
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no %s: %v", path, err)
	}
	want, err := bpftoolDump(t, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := dumpC(t, parse(t, raw, nil), v71)
	if !bytes.Equal(got, want) {
		t.Fatalf("differs from bpftool on %s: %s", path, firstDiff(got, want))
	}
}

// TestCompileVmlinux compiles the full host header of bpftool 7.1 with
// clang -target bpf. The plain "go test" compiles the default header
// (TestCompileVmlinux75) and 7.1's small ones (TestMiniHeader,
// TestCasesCompile).
func TestCompileVmlinux(t *testing.T) {
	clang(t)
	testfixtures.SkipUnlessHeavy(t, "one more vmlinux.h compile")
	compile(t, dumpC(t, hostSpec(t), v71),
		"int size_of_task(void) { return sizeof(struct task_struct) + sizeof(struct sk_buff); }")
}

func TestCompileVmlinuxDebianModule(t *testing.T) {
	clang(t)
	if testing.Short() {
		t.Skip("short")
	}
	testfixtures.SkipUnlessHeavy(t, "one more vmlinux.h compile")
	compile(t, dumpC(t, moduleSpec(t, goldenModule), v71),
		"int size_of_kvm(void) { return sizeof(struct kvm_vcpu); }")
}

// TestMiniHeader checks the header of task_struct and sk_buff: both
// defined, unrelated types left out, much smaller than the whole, and it
// compiles on its own.
func TestMiniHeader(t *testing.T) {
	s := hostSpec(t)
	full := dumpC(t, s, v71)
	mini := dumpC(t, s, cdump.Options{Compat: cdump.CompatBpftool71, Types: []string{"task_struct", "sk_buff"}})
	b := body(t, mini)
	for _, want := range []string{"\nstruct task_struct {\n", "\nstruct sk_buff {\n", "\nstruct list_head {\n", "\ntypedef __kernel_pid_t pid_t;\n"} {
		if !strings.Contains("\n"+b, want) {
			t.Errorf("mini header lacks %q", want)
		}
	}
	// Unrelated to both: must not be there, not even declared.
	for _, unwanted := range []string{"struct kvm_vcpu", "struct drm_device", "enum bpf_cmd", "struct usb_device {"} {
		if strings.Contains(b, unwanted) {
			t.Errorf("mini header has unrelated %q", unwanted)
		}
	}
	if len(mini)*4 > len(full) {
		t.Errorf("mini header is %d bytes, full %d: expected much smaller", len(mini), len(full))
	}
	t.Logf("mini header: %d bytes, %d lines (full: %d bytes)", len(mini), bytes.Count(mini, []byte("\n")), len(full))
	clang(t)
	compile(t, mini, `
int pid_of(struct task_struct *t) { return t->pid; }
unsigned int len_of(struct sk_buff *skb) { return skb->len; }`)
}

// TestMiniHeaderMatchesBpftoolStyle checks that each definition in a mini
// header is printed exactly as in the full header (modulo ___N renames,
// which depend on what else is printed).
func TestMiniHeaderMatchesFullHeader(t *testing.T) {
	s := hostSpec(t)
	full := string(dumpC(t, s, v71))
	mini := body(t, dumpC(t, s, cdump.Options{Compat: cdump.CompatBpftool71, Types: []string{"struct task_struct"}}))
	for _, def := range strings.Split(mini, "\n\n") {
		if def == "" || strings.Contains(def, "___") {
			continue
		}
		if !strings.Contains(full, def+"\n\n") {
			t.Fatalf("definition not in the full header:\n%.500s", def)
		}
	}
}

func TestMiniHeaderKinds(t *testing.T) {
	s := hostSpec(t)
	for _, tc := range []struct {
		name string
		want string
	}{
		{"struct sock", "struct sock {"},
		{"union bpf_attr", "union bpf_attr {"},
		{"enum bpf_cmd", "enum bpf_cmd {"},
		{"typedef u32", "typedef __u32 u32;"},
		{"u64", "typedef __u64 u64;"},
		{"vfs_read", "\nstruct file {"}, // a FUNC: its parameters' types
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := cdump.Write(&buf, s, cdump.Options{Compat: cdump.CompatBpftool71, Types: []string{tc.name}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), tc.want) {
				t.Errorf("no %q in the mini header", tc.want)
			}
		})
	}
}

// TestMiniHeaderFunc prints the types of a function's prototype.
func TestMiniHeaderFunc(t *testing.T) {
	g := newGen()
	i, _, _, _ := g.std()
	st := g.strct("arg", 4, member{"x", i, 0, 0})
	g.fn("take", g.proto(i, param{"a", g.ptr(st)}, param{"n", i}))
	g.strct("unrelated", 4, member{"y", i, 0, 0})
	got := body(t, dumpC(t, parse(t, g.bytes(), nil), cdump.Options{Compat: cdump.CompatBpftool71, Types: []string{"take"}}))
	if want := "struct arg {\n\tint x;\n};\n\n"; got != want {
		t.Errorf("got %q", got)
	}
}

func TestUnknownType(t *testing.T) {
	s := hostSpec(t)
	for _, names := range [][]string{{"no_such_type_xyz"}, {"task_struct", "no_such_type_xyz"}, {"enum task_struct"}, {"struct "}} {
		var buf bytes.Buffer
		err := cdump.Write(&buf, s, cdump.Options{Compat: cdump.CompatBpftool71, Types: names})
		if !errors.Is(err, btf.ErrNotFound) {
			t.Errorf("%q: err = %v, want ErrNotFound", names, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%q: %d bytes written before the error", names, buf.Len())
		}
	}
}

// TestTypeCycle checks that BTF that cannot be ordered gives ErrTypeCycle,
// as bpftool fails on it.
func TestTypeCycle(t *testing.T) {
	for name, build := range map[string]func(g *gen){
		"embeds itself": func(g *gen) {
			i, _, _, _ := g.std()
			g.strct("self", 8, member{"x", i, 0, 0}, member{"me", 5, 32, 0})
		},
		"anonymous loop": func(g *gen) {
			g.std()
			g.strct("", 8, member{"p", 6, 0, 0}) // 5
			g.ptr(5)
		},
		"typedef loop": func(g *gen) {
			g.std()
			g.typedef("a", 6)
			g.typedef("b", 5)
		},
		"const loop": func(g *gen) {
			g.std()
			g.cnst(6)
			g.volatile(5)
		},
		"pointer loop": func(g *gen) {
			g.std()
			g.ptr(6)
			g.ptr(5)
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := newGen()
			build(g)
			s := parse(t, g.bytes(), nil)
			for _, opts := range []cdump.Options{v71, {Unsorted: true}, {}} {
				err := cdump.Write(&bytes.Buffer{}, s, opts)
				if !errors.Is(err, cdump.ErrTypeCycle) {
					t.Fatalf("%+v: err = %v, want ErrTypeCycle", opts, err)
				}
			}
		})
	}
}

// TestTooComplex builds prototypes whose parameters are the next
// prototype, twice: 2^40 paths, which libbpf would walk one by one.
func TestTooComplex(t *testing.T) {
	g := newGen()
	i, _, _, _ := g.std()
	const levels = 40
	first := g.next
	for k := range levels {
		next := first + btf.TypeID(k) + 1
		if k == levels-1 {
			next = i
		}
		g.proto(i, param{"a", next}, param{"b", next})
	}
	g.typedef("fn_t", first)
	s := parse(t, g.bytes(), nil)
	for _, opts := range []cdump.Options{v71, {Unsorted: true}, {}} {
		err := cdump.Write(&bytes.Buffer{}, s, opts)
		if !errors.Is(err, cdump.ErrTooComplex) {
			t.Fatalf("%+v: err = %v, want ErrTooComplex", opts, err)
		}
	}
}

// errWriter fails after n bytes.
type errWriter struct {
	n   int
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriterError(t *testing.T) {
	s := debianSpec(t)
	boom := errors.New("boom")
	for _, n := range []int{0, 100, 1 << 20} {
		err := cdump.Write(&errWriter{n: n, err: boom}, s, v71)
		if !errors.Is(err, boom) {
			t.Errorf("after %d bytes: err = %v, want boom", n, err)
		}
	}
}

// sizeWriter records the largest single write.
type sizeWriter struct {
	max, total int
}

func (w *sizeWriter) Write(p []byte) (int, error) {
	w.max = max(w.max, len(p))
	w.total += len(p)
	return len(p), nil
}

// TestStreaming checks that the header reaches the writer in small pieces
// and that the memory allocated does not grow with the output.
func TestStreaming(t *testing.T) {
	s := hostSpec(t)
	for _, tc := range []struct {
		name    string
		opts    cdump.Options
		perType int64 // bytes of state per type, at most
	}{
		{"bpftool 7.1", v71, 48},
		{"unsorted", cdump.Options{Unsorted: true}, 48},
		// The sort's keys (40 bytes for each type that prints) and, while
		// it runs, its memo (21 bytes per type).
		{"sorted", cdump.Options{}, 96},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w sizeWriter
			if err := cdump.Write(&w, s, tc.opts); err != nil {
				t.Fatal(err)
			}
			if w.max > 128<<10 {
				t.Errorf("largest write %d bytes: output is not streamed", w.max)
			}
			// The bytes allocated by a Write after the one above, the
			// warm-up, measured as testing.Benchmark does
			// (MemStats.TotalAlloc) without its second of repeated runs.
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := cdump.Write(io.Discard, s, tc.opts); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			perOp := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("output %d bytes; allocated %d bytes in %d allocations per Write", w.total, perOp, after.Mallocs-before.Mallocs)
			// The state is a few dozen bytes per type, whatever the output size.
			if limit := tc.perType*int64(s.LastID()+1) + 1<<20; perOp > limit {
				t.Errorf("allocated %d bytes for %d types, want at most %d", perOp, s.LastID(), limit)
			}
		})
	}
}

// TestConcurrent dumps one Spec from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	s := debianSpec(t)
	want := dumpC(t, s, cdump.Options{Compat: cdump.CompatBpftool71, Types: []string{"sk_buff"}})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var buf bytes.Buffer
			if err := cdump.Write(&buf, s, cdump.Options{Compat: cdump.CompatBpftool71, Types: []string{"sk_buff"}}); err != nil {
				t.Error(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Error("concurrent output differs")
			}
		})
	}
	wg.Wait()
}

func TestClosedSpec(t *testing.T) {
	g := newGen()
	g.std()
	s, err := btf.Parse(g.bytes(), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := cdump.Write(io.Discard, s, v71); !errors.Is(err, btf.ErrClosed) {
		t.Errorf("err = %v, want ErrClosed", err)
	}
	if err := cdump.Write(io.Discard, nil, v71); err == nil {
		t.Error("nil Spec: no error")
	}
}

// TestEmpty checks BTF without types: only the header and footer, and for
// bpftool 7.5 the macros and an empty kfunc block.
func TestEmpty(t *testing.T) {
	s := parse(t, newGen().bytes(), nil)
	if got := dumpC(t, s, v71); string(got) != wantHeader+wantFooter {
		t.Errorf("bpftool 7.1: got %q", got)
	}
	want75 := prologue75 + "\n/* BPF kfuncs */\n#ifndef BPF_NO_KFUNC_PROTOTYPES\n#endif\n\n" + wantFooter
	for _, opts := range []cdump.Options{{}, {Unsorted: true}} {
		if got := dumpC(t, s, opts); string(got) != want75 {
			t.Errorf("%+v: got %q", opts, got)
		}
	}
	if got := dumpSkipFirst(t, s); string(got) != want75 {
		t.Errorf("first left out: got %q", got)
	}
}

// BenchmarkWrite prints the host fixture's vmlinux.h to io.Discard, as
// bpftool 7.5 (sorted and unsorted) and 7.1 do.
func BenchmarkWrite(b *testing.B) {
	s := hostSpec(b)
	for _, bc := range []struct {
		name string
		opts cdump.Options
	}{{"sorted", cdump.Options{}}, {"unsorted", cdump.Options{Unsorted: true}}, {"bpftool-7.1", v71}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := cdump.Write(io.Discard, s, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
