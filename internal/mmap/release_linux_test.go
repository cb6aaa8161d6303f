package mmap

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// counter counts Release's system calls.
type counter struct{ n atomic.Int64 }

func (c *counter) get() int { return int(c.n.Load()) }

// countMadvise makes Release's system calls counted, until the test ends.
func countMadvise(t *testing.T) *counter {
	t.Helper()
	calls := new(counter)
	orig := madvise
	madvise = func(b []byte, advice int) error {
		calls.n.Add(1)
		return orig(b, advice)
	}
	t.Cleanup(func() { madvise = orig })
	return calls
}

// mapTemp maps a temporary file of n pages.
func mapTemp(t *testing.T, n int) *Region {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, n*pageSize), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := File(f, int64(n*pageSize))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// releasePages calls Release on each page of r in turn and returns how
// many system calls they made.
func releasePages(r *Region, calls *counter) int {
	before := calls.get()
	b := r.Bytes()
	for off := 0; off < len(b); off += pageSize {
		Release(b[off : off+pageSize])
	}
	return calls.get() - before
}

// TestReleaseStopsOnRefusal checks that Release asks a file's mapping
// whose pages cannot be dropped (here locked: MADV_DONTNEED fails with
// EINVAL, as on the kernel's remap_pfn_range mapping of
// /sys/kernel/btf/vmlinux) once, and that a mapping that drops them,
// and a later mapping at the same place, are asked every time.
func TestReleaseStopsOnRefusal(t *testing.T) {
	calls := countMadvise(t)
	const pages = 8
	ok := mapTemp(t, pages)
	if n := releasePages(ok, calls); n != pages {
		t.Errorf("a plain file mapping: %d calls for %d releases", n, pages)
	}
	locked := mapTemp(t, pages)
	if err := unix.Mlock(locked.Bytes()); err != nil {
		t.Skipf("mlock: %v (RLIMIT_MEMLOCK)", err)
	}
	if n := releasePages(locked, calls); n != 1 {
		t.Errorf("a locked mapping: %d calls for %d releases, want 1", n, pages)
	}
	if n := releasePages(ok, calls); n != pages {
		t.Errorf("the plain mapping after the locked one's refusal: %d calls, want %d", n, pages)
	}
	if err := locked.Free(); err != nil {
		t.Fatal(err)
	}
	if err := ok.Free(); err != nil {
		t.Fatal(err)
	}
	if refusals.find(0) != nil || len(refusals.m) != 0 {
		t.Errorf("%d mappings left after Free", len(refusals.m))
	}
	again := mapTemp(t, pages)
	defer again.Free()
	if n := releasePages(again, calls); n != pages {
		t.Errorf("a new mapping: %d calls for %d releases", n, pages)
	}
}

// TestReleaseSysfsVmlinux checks Release on the kernel's own BTF, which
// sysfs maps with remap_pfn_range: one system call, not one a release.
func TestReleaseSysfsVmlinux(t *testing.T) {
	f, err := os.Open("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Skipf("no kernel BTF in sysfs: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := File(f, fi.Size())
	if err != nil {
		t.Skipf("sysfs BTF not mappable here: %v", err)
	}
	defer r.Free()
	if r.Len() < 4*pageSize {
		t.Skipf("kernel BTF of %d bytes", r.Len())
	}
	b := r.Bytes()
	if err := unix.Madvise(b[:pageSize], unix.MADV_DONTNEED); err != unix.EINVAL {
		t.Skipf("this kernel's sysfs BTF mapping takes MADV_DONTNEED (%v)", err)
	}
	calls := countMadvise(t)
	for off := 0; off+pageSize <= 4*pageSize; off += pageSize {
		Release(b[off : off+pageSize])
	}
	if calls.get() != 1 {
		t.Errorf("%d madvise calls for 4 releases of the sysfs mapping, want 1", calls.get())
	}
}

// TestReleaseConcurrent releases pages of a locked and of a plain mapping
// from several goroutines at once, as dedup's workers do, while other
// mappings come and go: under -race it checks the record of mappings,
// and a refusing mapping is asked at most once by each goroutine.
func TestReleaseConcurrent(t *testing.T) {
	calls := countMadvise(t)
	const pages, workers = 64, 8
	locked := mapTemp(t, pages)
	defer locked.Free()
	if err := unix.Mlock(locked.Bytes()); err != nil {
		t.Skipf("mlock: %v (RLIMIT_MEMLOCK)", err)
	}
	plain := mapTemp(t, pages)
	defer plain.Free()
	other := mapTemp(t, 2)
	path := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(path, other.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	other.Free()
	before := calls.get()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := locked.Bytes()
			for off := w * pageSize; off < len(b); off += workers * pageSize {
				Release(b[off : off+pageSize])
			}
			Release(plain.Bytes()[w*pageSize : (w+1)*pageSize])
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			f, err := os.Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			r, err := File(f, int64(2*pageSize))
			f.Close()
			if err != nil {
				t.Error(err)
				return
			}
			Release(r.Bytes())
			r.Free()
		}
	}()
	wg.Wait()
	// The plain mapping's and the coming and going ones' releases are
	// made every time; the locked mapping's once per goroutine at most.
	if n := calls.get() - before - workers - 20; n < 1 || n > workers {
		t.Errorf("%d calls on the locked mapping from %d goroutines", n, workers)
	}
}
