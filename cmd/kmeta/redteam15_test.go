package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestRedteam15TruncatedKernel is the fifteenth campaign's cut of a live
// input (findings F2, F3): `btf find --kernel --sysfs DIR` and `btf
// modules --sysfs DIR`, `btf dedup -B vmlinux` and `btf dedup --each` run while another process truncates
// DIR/kernel/btf/vmlinux, which kmeta maps, at a random moment. Every
// run must end within 30 s (F3: a fault while kernel.Cache.Find held its
// mutex hung the deferred Close forever) with status 0, 1 or 2 and at
// most one line on stderr (F2: a fault on one of the goroutines that btf,
// workpool and kernel start printed the runtime's "unexpected fault
// address" trace; F5: the same in btf dedup's base loader and
// workpool.Ordered). Plain go test: 12 runs (about 3 s); KMETA_HEAVY=1: 200.
func TestRedteam15TruncatedKernel(t *testing.T) {
	bin := buildKmeta(t)
	// A tree of its own (an edit that changes nothing): the shared one's
	// vmlinux is read by the parallel tests while this one cuts it.
	dir := fakeSysfs(t, func(_ string, b []byte) []byte { return b })
	vmlinux := filepath.Join(dir, "kernel", "btf", "vmlinux")
	orig, err := os.ReadFile(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	// A private copy: the tree's files may be links to a shared one.
	if err := os.Remove(vmlinux); err != nil {
		t.Fatal(err)
	}
	runs := 12
	if testfixtures.Heavy() {
		runs = 200
	}
	cmds := [][]string{
		{"btf", "find", "--kernel", "--sysfs", dir, "sk_buff"},
		{"btf", "find", "--kernel", "--sysfs", dir, "--json", "list_head"},
		{"btf", "find", "--kernel", "--sysfs", dir, "--flavors", "task_struct"},
		{"btf", "modules", "--sysfs", dir},
	}
	// F5: dedup reads the base on a goroutine of its own and the inputs
	// on workpool.Ordered's.
	mods, err := filepath.Glob(filepath.Join(dir, "kernel", "btf", "[a-m]*"))
	if err != nil || len(mods) < 50 {
		t.Fatalf("modules of the fake tree: %d, %v", len(mods), err)
	}
	out := t.TempDir()
	cmds = append(cmds,
		append([]string{"btf", "dedup", "-B", vmlinux, "-o", filepath.Join(out, "one.btf")}, mods[:50]...),
		append([]string{"btf", "dedup", "--each", "-j", "2", "-B", vmlinux, "-d", out}, mods...))
	rng := rand.New(rand.NewPCG(15, 37))
	outcomes := map[string]int{}
	for i := range runs {
		args := cmds[i%len(cmds)]
		delay := time.Duration(rng.Int64N(int64(120 * time.Millisecond)))
		outcomes[runCut(t, bin, "", args, vmlinux, orig, delay, []int64{0, 24, 4096, 1 << 20}[rng.IntN(4)])]++
	}
	t.Logf("outcomes: %v", outcomes)
}
