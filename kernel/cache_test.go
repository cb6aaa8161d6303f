package kernel

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// closed reports whether spec has been closed.
func closed(spec *btf.Spec) bool {
	_, err := spec.TypeByID(1)
	return errors.Is(err, btf.ErrClosed)
}

func TestCacheLifecycle(t *testing.T) {
	c := NewCache(Options{Sysfs: fakeSysfs(t, only("xfs"), nil)})
	h1, err := c.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	h2, err := c.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	v1 := h1.Vmlinux()
	if h2.Vmlinux() != v1 {
		t.Fatal("two Handles of one generation see different vmlinux Specs")
	}
	xfs, err := h1.Module("xfs")
	if err != nil {
		t.Fatal(err)
	}

	// Flush with live Handles: the Specs stay open for them.
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if closed(v1) || closed(xfs) {
		t.Fatal("Flush closed Specs that Handles hold")
	}
	if _, err := h2.Find("xfs_mount", FindOptions{}); err != nil {
		t.Fatalf("find after Flush: %v", err)
	}

	// A new Acquire opens a new generation.
	h3, err := c.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	if h3.Vmlinux() == v1 {
		t.Fatal("Acquire after Flush returned the flushed Spec")
	}

	// Releasing the last Handle on the flushed generation closes it.
	if err := h1.Release(); err != nil {
		t.Fatal(err)
	}
	if closed(v1) {
		t.Fatal("closed while h2 holds it")
	}
	if err := h2.Release(); err != nil {
		t.Fatal(err)
	}
	if !closed(v1) || !closed(xfs) {
		t.Fatal("flushed generation still open after its last Release")
	}
	if err := h2.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if _, err := h2.Find("xfs_mount", FindOptions{}); !errors.Is(err, ErrReleased) {
		t.Errorf("Find after Release: %v, want ErrReleased", err)
	}
	if _, err := h2.Modules(); !errors.Is(err, ErrReleased) {
		t.Errorf("Modules after Release: %v, want ErrReleased", err)
	}
	if _, err := h2.Module("xfs"); !errors.Is(err, ErrReleased) {
		t.Errorf("Module after Release: %v, want ErrReleased", err)
	}
	if h2.Vmlinux() != nil {
		t.Error("Vmlinux after Release is not nil")
	}

	// Without Flush, releasing every Handle keeps the Specs cached.
	v3 := h3.Vmlinux()
	h3.Release()
	if closed(v3) {
		t.Fatal("unflushed generation closed on Release")
	}
	h4 := acquire(t, c)
	if h4.Vmlinux() != v3 {
		t.Fatal("Acquire did not reuse the cached Spec")
	}

	// Close: Handles keep working, new Acquires fail, Release closes.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Acquire(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Acquire after Close: %v, want ErrClosed", err)
	}
	if _, err := h4.Find("xfs_mount", FindOptions{}); err != nil {
		t.Fatalf("find after Close: %v", err)
	}
	h4.Release()
	if !closed(v3) {
		t.Fatal("Specs open after Close and the last Release")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestFlushIdle(t *testing.T) {
	c := NewCache(Options{Sysfs: fakeSysfs(t, only("xfs"), nil)})
	defer c.Close()
	if err := c.Flush(); err != nil { // empty: nothing to do
		t.Fatal(err)
	}
	h, err := c.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	v := h.Vmlinux()
	h.Release()
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if !closed(v) {
		t.Fatal("Flush with no Handle did not close the Specs")
	}
}

func TestDefault(t *testing.T) {
	first, second := Default(), Default()
	if first != second || first.Options() != (Options{Workers: first.Options().Workers}) || first.Options().Workers < 1 {
		t.Fatalf("Default is not one Cache of the running kernel: options %+v", first.Options())
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("no /sys/kernel/btf/vmlinux")
	}
	h, err := Default().Acquire()
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Find("task_struct", FindOptions{Kind: btf.KindStruct})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].Module != Vmlinux {
		t.Errorf("task_struct: %v, %v", res, err)
	}
	h.Release()
	if err := Default().Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentAcquireFlush runs 8 goroutines that acquire, search, read
// the types they find, release and flush, all at once. Under -race it
// checks the locking; the reads check that no Handle ever sees a closed
// Spec (a view over an unmapped Spec reads zeros, or faults).
func TestConcurrentAcquireFlush(t *testing.T) {
	mods := []string{"xfs", "tls", "af_key", "kvm", "btrfs", "vport_gre", "nf_nat_amanda", "bonding"}
	c := NewCache(Options{Sysfs: fakeSysfs(t, only(mods...), nil)})
	const goroutines = 8
	// 400 uses and about 60 Flushes, each of which makes the next Acquire
	// open vmlinux again (enough for contention, few enough for -race in
	// CI to run them too).
	iters := 50
	var (
		mu    sync.Mutex
		specs = map[*btf.Spec]bool{}
	)
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range iters {
				if err := useOnce(c, mods[(g+i)%len(mods)], &mu, specs); err != nil {
					errs <- fmt.Errorf("goroutine %d, iteration %d: %w", g, i, err)
					return
				}
				if (g+i)%7 == 0 {
					if err := c.Flush(); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Every Spec handed out is closed now: nothing leaked.
	for s := range specs {
		if !closed(s) {
			t.Errorf("Spec %p still open after Close", s)
		}
	}
	t.Logf("%d Specs opened and closed", len(specs))
}

// useOnce acquires a Handle, searches through it and reads what it finds,
// and releases it.
func useOnce(c *Cache, module string, mu *sync.Mutex, specs map[*btf.Spec]bool) error {
	h, err := c.Acquire()
	if err != nil {
		return err
	}
	defer h.Release()
	res, err := h.Find("xfs_mount", FindOptions{Kind: btf.KindStruct})
	if err != nil {
		return err
	}
	if len(res.Matches) != 1 || res.Matches[0].Module != "xfs" {
		return fmt.Errorf("xfs_mount: %v", res.Matches)
	}
	t := res.Matches[0].Type
	if t.Name() != "xfs_mount" || t.Vlen() == 0 || t.Size() == 0 {
		return fmt.Errorf("xfs_mount reads as %v (closed Spec?)", t)
	}
	// The members' types are mostly vmlinux's: reading their records and
	// names reads the memory-mapped vmlinux file.
	for _, m := range t.Members() {
		mt, err := t.Spec().TypeByID(m.Type)
		if err != nil {
			return fmt.Errorf("member %s: %w", m.Name(), err)
		}
		if m.Type != 0 && mt.Kind() == btf.KindUnknown {
			return fmt.Errorf("member %s: type %d reads as void (closed Spec?)", m.Name(), m.Type)
		}
		_ = mt.NameBytes()
	}
	spec, err := h.Module(module)
	if err != nil {
		return err
	}
	n := 0
	for range spec.Types(btf.ScopeOwn) {
		n++
	}
	if n != spec.NumTypes() || n == 0 {
		return fmt.Errorf("%s: iterated %d of %d types", module, n, spec.NumTypes())
	}
	mu.Lock()
	specs[h.Vmlinux()] = true
	specs[spec] = true
	mu.Unlock()
	return nil
}

// rss returns the process's resident anonymous and file-backed memory, in
// bytes, from /proc/self/status; file-backed includes shared memory.
func rss(tb testing.TB) (anon, file int64) {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "RssAnon: %d kB", &kb); err == nil {
			anon = kb << 10
		}
		// A file in a memory file system (the fake sysfs may be in
		// /dev/shm) is mapped as shared memory, not as a file.
		if _, err := fmt.Sscanf(line, "RssFile: %d kB", &kb); err == nil {
			file += kb << 10
		}
		if _, err := fmt.Sscanf(line, "RssShmem: %d kB", &kb); err == nil {
			file += kb << 10
		}
	}
	return anon, file
}

// TestFlushGivesMemoryBack measures the resident memory before Acquire,
// with vmlinux and all 1,121 modules open and read, and after Release and
// Flush: the vmlinux mapping (4.1 MB) leaves the file-backed RSS and the
// module data (8.6 MB read into the heap) the anonymous RSS.
func TestFlushGivesMemoryBack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory blurs RSS")
	}
	c := NewCache(Options{Sysfs: fakeSysfs(t, nil, nil)})
	settle := func() (int64, int64) {
		runtime.GC()
		debug.FreeOSMemory()
		return rss(t)
	}
	anon0, file0 := settle()

	h, err := c.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	mods, err := h.Modules()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range mods {
		if _, err := h.Module(name); err != nil {
			t.Fatal(err)
		}
	}
	var names int
	for _, ty := range h.Vmlinux().All() { // touches every page of vmlinux
		names += len(ty.NameBytes())
	}
	anon1, file1 := settle()

	h.Release()
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	anon2, file2 := settle()

	const mb = 1 << 20
	t.Logf("RSS anon/file: before %.1f/%.1f MiB, open %.1f/%.1f MiB, after Flush %.1f/%.1f MiB (%d name bytes read)",
		float64(anon0)/mb, float64(file0)/mb, float64(anon1)/mb, float64(file1)/mb, float64(anon2)/mb, float64(file2)/mb, names)
	// 90% of the data's size, for page rounding and the runtime's slack.
	vmlinuxSize := int64(len(testfixtures.Read(t, testfixtures.DebianVmlinux))) * 9 / 10
	var modSize int64
	for _, b := range testfixtures.Modules(t) {
		modSize += int64(len(b)) * 9 / 10
	}
	if file1-file0 < vmlinuxSize || file1-file2 < vmlinuxSize {
		t.Errorf("file-backed RSS %d -> %d -> %d: the 4.1 MB vmlinux mapping should come and go", file0, file1, file2)
	}
	if anon1-anon0 < modSize || anon1-anon2 < modSize {
		t.Errorf("anonymous RSS %d -> %d -> %d: the 8.6 MB of module BTF should come and go", anon0, anon1, anon2)
	}
}
