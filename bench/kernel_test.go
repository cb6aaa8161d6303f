package bench

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	cbtf "github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kernel"
)

// onlyInXFS is a type that exactly one of the 1,121 Debian 6.1 modules
// (xfs) has, and vmlinux does not.
const onlyInXFS = "xfs_mount"

// debianSysfs builds a fake sysfs, DIR/kernel/btf/{vmlinux,MODULE...}, from
// the Debian 6.1 fixtures: vmlinux and all 1,121 module BTFs, named as the
// kernel names them ('-' spelled '_'). It returns DIR and the module names.
func debianSysfs(b *testing.B) (string, []string) {
	b.Helper()
	dir := b.TempDir()
	btfDir := filepath.Join(dir, "kernel", "btf")
	if err := os.MkdirAll(btfDir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(btfDir, "vmlinux"), testfixtures.Read(b, testfixtures.DebianVmlinux), 0o444); err != nil {
		b.Fatal(err)
	}
	var names []string
	for file, data := range testfixtures.Modules(b) {
		name := strings.ReplaceAll(file, "-", "_")
		if err := os.WriteFile(filepath.Join(btfDir, name), data, 0o444); err != nil {
			b.Fatal(err)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return dir, names
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// kmetaFindAll opens vmlinux and every module from the fake sysfs through
// a kernel.Cache, finds onlyInXFS, and returns the open Handle.
func kmetaFindAll(b *testing.B, c *kernel.Cache) *kernel.Handle {
	h, res, err := c.Find(onlyInXFS, kernel.FindOptions{})
	if err != nil || len(res.Failed) != 0 || len(res.Matches) != 1 || res.Matches[0].Module != "xfs" {
		b.Fatalf("%v, %v", res, err)
	}
	return h
}

// ciliumSpecs is what cilium/ebpf's btf.Cache holds once every module is
// loaded: the kernel Spec and one split Spec per module over it.
type ciliumSpecs struct {
	base    *cbtf.Spec
	modules map[string]*cbtf.Spec
}

// ciliumFindAll does what cilium/ebpf v0.22's Cache.Kernel and
// Cache.Module do for every module, over the fake sysfs: Cache and
// LoadKernelModuleSpec read only the real /sys/kernel/btf, so this calls
// the functions they call (LoadSpec for vmlinux, which reads it into the
// heap; LoadSplitSpec, i.e. LoadSplitSpecFromReader, per module on the
// shared base), then looks the name up in every module as a caller
// iterating Cache.Modules must.
func ciliumFindAll(b *testing.B, dir string, names []string) ciliumSpecs {
	btfDir := filepath.Join(dir, "kernel", "btf")
	base, err := cbtf.LoadSpec(filepath.Join(btfDir, "vmlinux"))
	if err != nil {
		b.Fatal(err)
	}
	cs := ciliumSpecs{base: base, modules: make(map[string]*cbtf.Spec, len(names))}
	if _, err := base.AnyTypesByName(onlyInXFS); !errors.Is(err, cbtf.ErrNotFound) {
		b.Fatalf("vmlinux: %v", err)
	}
	var found []string
	for _, name := range names {
		spec, err := cbtf.LoadSplitSpec(filepath.Join(btfDir, name), base)
		if err != nil {
			b.Fatal(err)
		}
		cs.modules[name] = spec
		ts, err := spec.AnyTypesByName(onlyInXFS)
		if errors.Is(err, cbtf.ErrNotFound) {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		if len(ts) > 0 {
			found = append(found, name)
		}
	}
	if !slices.Equal(found, []string{"xfs"}) {
		b.Fatalf("found in %v", found)
	}
	return cs
}

// BenchmarkKernelModules: open vmlinux and all 1,121 module BTFs of the
// Debian 6.1 kernel from a fake sysfs, and find a type that only one
// module (xfs) has. "retained-B" is the live heap holding what each keeps
// open afterwards: cilium every module; kmeta, which rules modules out by
// their string sections, xfs only (its vmlinux is memory-mapped, 4.7 MB
// of page cache, not heap).
func BenchmarkKernelModules(b *testing.B) {
	dir, names := debianSysfs(b)
	b.Run("kmeta", func(b *testing.B) {
		before := heapInUse()
		c := kernel.NewCache(kernel.Options{Sysfs: dir, Workers: runtime.GOMAXPROCS(0)})
		h := kmetaFindAll(b, c)
		retained := heapInUse() - before
		h.Release()
		c.Close()
		b.ReportAllocs()
		for b.Loop() {
			c := kernel.NewCache(kernel.Options{Sysfs: dir, Workers: runtime.GOMAXPROCS(0)})
			h := kmetaFindAll(b, c)
			h.Release()
			c.Close()
		}
		b.ReportMetric(float64(retained), "retained-B")
	})
	b.Run("cilium", func(b *testing.B) {
		before := heapInUse()
		cs := ciliumFindAll(b, dir, names)
		retained := heapInUse() - before
		runtime.KeepAlive(cs)
		b.ReportAllocs()
		for b.Loop() {
			ciliumFindAll(b, dir, names)
		}
		b.ReportMetric(float64(retained), "retained-B")
	})
	// Floors, on GOMAXPROCS goroutines as kmeta uses, parsing nothing:
	// open, fstat, read and close every file (what reading them all
	// costs), and only open and close every file (what any search that
	// looks at every module costs).
	btfDir := filepath.Join(dir, "kernel", "btf")
	paths := []string{filepath.Join(btfDir, "vmlinux")}
	for _, name := range names {
		paths = append(paths, filepath.Join(btfDir, name))
	}
	b.Run("floor-read-all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			readAll(b, paths, true)
		}
	})
	b.Run("floor-open-close", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			readAll(b, paths, false)
		}
	})
}

// readAll opens every file of paths and, if read, reads it whole with the
// fewest system calls, on GOMAXPROCS goroutines.
func readAll(b *testing.B, paths []string, read bool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return
				}
				fd, err := unix.Open(paths[i], unix.O_RDONLY|unix.O_CLOEXEC, 0)
				if err != nil {
					b.Error(err)
					return
				}
				if read {
					var st unix.Stat_t
					if err := unix.Fstat(fd, &st); err != nil {
						b.Error(err)
					}
					buf := make([]byte, st.Size)
					if n, err := unix.Read(fd, buf); err != nil || n != len(buf) {
						b.Errorf("%s: read %d of %d bytes: %v", paths[i], n, len(buf), err)
					}
				}
				unix.Close(fd)
			}
		})
	}
	wg.Wait()
}

// BenchmarkKernelFindWarm: with vmlinux and every module already open
// (a warm kernel.Cache, which has built its name index after its first
// few searches; cilium's Specs all loaded), find a type that only one module
// has, in vmlinux and all 1,121 modules.
func BenchmarkKernelFindWarm(b *testing.B) {
	dir, names := debianSysfs(b)
	b.Run("kmeta", func(b *testing.B) {
		c := kernel.NewCache(kernel.Options{Sysfs: dir, Workers: runtime.GOMAXPROCS(0)})
		defer c.Close()
		// The first search opens every module; after a few, the Cache
		// builds its name index.
		for range 8 {
			kmetaFindAll(b, c).Release()
		}
		b.ReportAllocs()
		for b.Loop() {
			h := kmetaFindAll(b, c)
			h.Release()
		}
	})
	b.Run("cilium", func(b *testing.B) {
		cs := ciliumFindAll(b, dir, names)
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, name := range names {
				if ts, err := cs.modules[name].AnyTypesByName(onlyInXFS); err == nil {
					n += len(ts)
				}
			}
			if n != 1 {
				b.Fatalf("%d matches", n)
			}
		}
	})
}

// BenchmarkKernelParseModules: parse all 1,121 module BTFs on one base, from
// memory: the work libbpf does in 13-25 ms (btf__parse_split per module),
// without the file system.
func BenchmarkKernelParseModules(b *testing.B) {
	base, err := btf.Parse(testfixtures.Read(b, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		b.Fatal(err)
	}
	mods := testfixtures.Modules(b)
	b.Run("kmeta", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, data := range mods {
				if _, err := btf.Parse(data, btf.Options{Base: base}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("cilium", func(b *testing.B) {
		cbase, err := cbtf.LoadSpecFromReader(strings.NewReader(string(testfixtures.Read(b, testfixtures.DebianVmlinux))))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, data := range mods {
				if _, err := cbtf.LoadSplitSpecFromReader(strings.NewReader(string(data)), cbase); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
