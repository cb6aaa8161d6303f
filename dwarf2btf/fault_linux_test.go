package dwarf2btf_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestTruncatedUnderWorkers: EncodeFile with two workers, called with
// panic-on-fault on, of a mapped xfs.ko that is truncated at a random
// moment. Each call returns, or panics on the caller's goroutine with the
// fault, which recover sees; without the workers taking the setting over
// (internal/faults), a fault in one killed the test binary. Plain go
// test: 2 calls (about 4 s with the fixture's decompression);
// KMETA_HEAVY=1: 40.
func TestTruncatedUnderWorkers(t *testing.T) {
	ko := testfixtures.Read(t, "elf/xfs.ko.xz")
	base := debianBase(t)
	path := filepath.Join(t.TempDir(), "xfs.ko")
	runs := 2
	if testfixtures.Heavy() {
		runs = 40
	}
	rng := rand.New(rand.NewPCG(31, 2))
	faulted := 0
	for range runs {
		if err := os.WriteFile(path, ko, 0o644); err != nil {
			t.Fatal(err)
		}
		size := int64(len(ko) / (2 + rng.IntN(8)))
		cut := time.AfterFunc(time.Duration(rng.Int64N(int64(100*time.Millisecond))), func() {
			os.Truncate(path, size)
		})
		if encodeRecovering(path, base) {
			faulted++
		}
		cut.Stop()
	}
	t.Logf("%d of %d calls faulted on the caller's goroutine", faulted, runs)
}

// encodeRecovering encodes path with two workers under panic-on-fault
// and reports whether the call panicked with a memory fault; any other
// panic goes on.
func encodeRecovering(path string, base *btf.Spec) (faulted bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			faulted = true
		}
	}()
	_, _ = dwarf2btf.EncodeFile(context.Background(), path, dwarf2btf.Options{Base: base, Jobs: 2}, builder.Options{})
	return false
}
