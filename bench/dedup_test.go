package bench

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// Deduplication (issue 16) against libbpf, run as a process: the reference
// program internal/dedup/testdata/libbpf/libbpfdedup.c, built here against the
// system's libbpf (Debian's libbpf-dev 1.1), or the one KMETA_LIBBPFDEDUP
// names (for example built against libbpf 1.8: 1.1 cannot append split
// BTF, so the merged workload needs a newer one). Inputs: the Debian 6.1
// vmlinux and its 1,121 module BTFs from testdata/.
//
// Sub-benchmarks: "kmeta" runs the library in this process (its time is
// the deduplication's, the inputs parsed beforehand); "kmeta-cli" and
// "libbpf" run processes on the same files, and report their peak RSS
// (peak-MiB) and, for libbpf, its own time inside btf__add_btf and
// btf__dedup (libbpf-ms/op), excluding parsing and writing.

type dedupFiles struct {
	dir     string
	vmlinux string
	mods    []string // paths, in the golden's order
	names   []string
}

var (
	filesOnce sync.Once
	files     dedupFiles
)

func dedupInputs(b *testing.B) dedupFiles {
	b.Helper()
	filesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kmeta-dedup-bench")
		if err != nil {
			b.Fatal(err)
		}
		files.dir = dir
		files.vmlinux = filepath.Join(dir, "vmlinux.btf")
		must(b, os.WriteFile(files.vmlinux, testfixtures.Read(b, testfixtures.DebianVmlinux), 0o644))
		mods := testfixtures.Modules(b)
		order := testfixtures.ReadPath(b, filepath.Join(testfixtures.Dir(b), "..", "btf", "dedup", "testdata", "modules-merged.order.gz"))
		os.Mkdir(filepath.Join(dir, "mods"), 0o755)
		for _, p := range strings.Fields(string(order)) {
			name := strings.TrimSuffix(filepath.Base(p), ".btf")
			path := filepath.Join(dir, "mods", name+".btf")
			must(b, os.WriteFile(path, mods[name], 0o644))
			files.mods = append(files.mods, path)
			files.names = append(files.names, name)
		}
	})
	return files
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

var (
	refOnce       sync.Once
	refPath, kcli string
	refErr        error
)

// dedupTools builds the libbpf reference program and the kmeta CLI.
func dedupTools(b *testing.B) (libbpf, kmeta string) {
	b.Helper()
	refOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kmeta-dedup-tools")
		if err != nil {
			refErr = err
			return
		}
		kcli = filepath.Join(dir, "kmeta")
		build := exec.Command("go", "build", "-o", kcli, "./cmd/kmeta")
		build.Dir = filepath.Join(testfixtures.Dir(b), "..") // the kmeta module
		if out, err := build.CombinedOutput(); err != nil {
			refErr = &exec.Error{Name: string(out), Err: err}
			return
		}
		if refPath = os.Getenv("KMETA_LIBBPFDEDUP"); refPath != "" {
			return
		}
		refPath = filepath.Join(dir, "libbpfdedup")
		src := filepath.Join(testfixtures.Dir(b), "..", "btf", "dedup", "testdata", "libbpf", "libbpfdedup.c")
		if out, err := exec.Command("cc", "-O2", "-o", refPath, src, "-lbpf").CombinedOutput(); err != nil {
			refErr = &exec.Error{Name: string(out), Err: err}
		}
	})
	if refErr != nil {
		b.Skipf("needs cc and libbpf-dev: %v", refErr)
	}
	return refPath, kcli
}

// runTool runs a command and returns its peak RSS in MiB (0 if unknown)
// and the "KEY SECONDS" lines it printed. The peak comes from GNU time:
// the rusage of a child that Go starts includes this process's own peak
// (Linux keeps the larger of the old and new address space's peaks across
// exec), so the child must be started by a small process.
func runTool(b *testing.B, name string, args ...string) (float64, map[string]float64) {
	b.Helper()
	var cmd *exec.Cmd
	rssFile := filepath.Join(b.TempDir(), "rss")
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		cmd = exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", rssFile, name}, args...)...)
	} else {
		cmd = exec.Command(name, args...)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		b.Skipf("%s: %v: %s", filepath.Base(name), err, errOut.String())
	}
	var rss float64
	if kb, err := os.ReadFile(rssFile); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(kb)), 64); err == nil {
			rss = v / 1024
		}
	}
	vals := map[string]float64{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				vals[f[0]] = v
			}
		}
	}
	return rss, vals
}

func parseModules(b *testing.B, f dedupFiles) (*btf.Spec, *dedup.Base, []*btf.Spec) {
	b.Helper()
	vm, err := btf.Open(context.Background(), f.vmlinux, btf.Options{})
	must(b, err)
	b.Cleanup(func() { vm.Close() })
	base, err := dedup.NewBase(vm, dedup.Options{})
	must(b, err)
	var specs []*btf.Spec
	for _, p := range f.mods {
		s, err := btf.Open(context.Background(), p, btf.Options{Base: vm})
		must(b, err)
		b.Cleanup(func() { s.Close() })
		specs = append(specs, s)
	}
	return vm, base, specs
}

// BenchmarkDedupMerged: all 1,121 modules appended on the base and
// deduplicated once (161,575 -> 112,170 types).
func BenchmarkDedupMerged(b *testing.B) {
	f := dedupInputs(b)
	b.Run("kmeta", func(b *testing.B) {
		_, base, specs := parseModules(b, f)
		b.ReportAllocs()
		for b.Loop() {
			_, err := dedup.Specs(base, specs...)
			must(b, err)
		}
	})
	libbpf, kmeta := dedupTools(b)
	out := filepath.Join(f.dir, "merged.btf")
	b.Run("kmeta-cli", func(b *testing.B) {
		procs(b, kmeta, append([]string{"btf", "dedup", "-B", f.vmlinux, "-o", out}, f.mods...)...)
	})
	b.Run("libbpf", func(b *testing.B) {
		procs(b, libbpf, append([]string{"-t", "-B", f.vmlinux, "-o", out}, f.mods...)...)
	})
}

// BenchmarkDedupEach: each of the 1,121 modules deduplicated against the
// base on its own. kmeta prepares the base once (NewBase is timed) and
// uses every core; libbpf hashes the base again for every module, on one
// core, as a kernel build does.
func BenchmarkDedupEach(b *testing.B) {
	f := dedupInputs(b)
	b.Run("kmeta", func(b *testing.B) {
		vm, _, specs := parseModules(b, f)
		b.ReportAllocs()
		for b.Loop() {
			base, err := dedup.NewBase(vm, dedup.Options{})
			must(b, err)
			var next atomic.Int64
			var wg sync.WaitGroup
			for range runtime.GOMAXPROCS(0) {
				wg.Go(func() {
					for i := int(next.Add(1)) - 1; i < len(specs); i = int(next.Add(1)) - 1 {
						if _, err := dedup.Specs(base, specs[i]); err != nil {
							panic(err)
						}
					}
				})
			}
			wg.Wait()
		}
	})
	libbpf, kmeta := dedupTools(b)
	outDir := filepath.Join(f.dir, "each")
	os.Mkdir(outDir, 0o755)
	b.Run("kmeta-cli", func(b *testing.B) {
		procs(b, kmeta, append([]string{"btf", "dedup", "--each", "-B", f.vmlinux, "-d", outDir}, f.mods...)...)
	})
	b.Run("libbpf", func(b *testing.B) {
		procs(b, libbpf, append([]string{"-t", "-B", f.vmlinux, "-d", outDir}, f.mods...)...)
	})
}

// procs runs the command b.N times, reporting wall time per run, the peak
// RSS, and libbpf's own add+dedup time if it prints it.
func procs(b *testing.B, name string, args ...string) {
	var peak, inside float64
	for b.Loop() {
		rss, vals := runTool(b, name, args...)
		peak = max(peak, rss)
		inside += vals["add_seconds"] + vals["dedup_seconds"]
	}
	b.ReportMetric(peak, "peak-MiB")
	if inside > 0 {
		b.ReportMetric(inside*1000/float64(b.N), "libbpf-ms/op")
	}
}
