package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestTruncatedEncode cuts a mapped input while the goroutines that
// dwarf2btf and btf diff start for themselves read it: `btf encode -j 2`
// and `pahole -J -j 2` of xfs.ko (the encoder's workers, and the merge's
// passes beside the saved functions), `btf encode --each -j 2` and `btf
// diff` (the second side is indexed on a goroutine of its own). Another
// process truncates the file at a random moment; every run must end
// within 30 s with status 0, 1 or 2 and at most one line on stderr, never
// the runtime's "unexpected fault address" trace (before: 3 of 10 encode
// runs, 6 of 20 diff runs). Plain go test: 4 runs (about 4 s); KMETA_HEAVY=1: 120.
func TestTruncatedEncode(t *testing.T) {
	bin := buildKmeta(t)
	dir := t.TempDir()
	ko := testfixtures.Read(t, "elf/xfs.ko.xz")
	vmlinux := filepath.Join(dir, "vmlinux.btf")
	vmlinuxData := testfixtures.Read(t, testfixtures.DebianVmlinux)
	if err := os.WriteFile(vmlinux, vmlinuxData, 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "xfs.ko")
	cutBTF := filepath.Join(dir, "new.btf")
	type job struct {
		args []string
		file string // the file cut
		orig []byte
		by   time.Duration // the cut comes within this time of the start
	}
	jobs := []job{
		{[]string{"btf", "encode", "-j", "2", "-B", vmlinux, cut, "-o", filepath.Join(dir, "out.btf")}, cut, ko, 150 * time.Millisecond},
		{[]string{"pahole", "-J", "-j", "2", "--btf_base", vmlinux, cut}, cut, ko, 150 * time.Millisecond},
		{[]string{"btf", "encode", "--each", "-j", "2", "-B", vmlinux, "-d", filepath.Join(dir, "each"), cut}, cut, ko, 150 * time.Millisecond},
		{[]string{"btf", "diff", vmlinux, cutBTF}, cutBTF, vmlinuxData, 50 * time.Millisecond},
	}
	runs := 4
	if testfixtures.Heavy() {
		runs = 120
	}
	rng := rand.New(rand.NewPCG(31, 37))
	outcomes := map[string]int{}
	for i := range runs {
		j := jobs[i%len(jobs)]
		dir := ""
		if j.args[0] == "pahole" {
			dir = filepath.Dir(cut) // pahole -J writes into the file itself
		}
		size := []int64{0, 4096, int64(len(j.orig) / 4), int64(len(j.orig) / 2)}[rng.IntN(4)]
		outcomes[runCut(t, bin, dir, j.args, j.file, j.orig, time.Duration(rng.Int64N(int64(j.by))), size)]++
	}
	t.Logf("outcomes: %v", outcomes)
}

// runCut writes orig to file, starts kmeta with args in dir, truncates
// file to size after delay, and reports an error unless kmeta ends within
// 30 s with status 0, 1 or 2 and at most one line on stderr, never the
// runtime's trace. It returns the outcome: the command, its status and
// the start of its message.
func runCut(t *testing.T, bin, dir string, args []string, file string, orig []byte, delay time.Duration, size int64) string {
	t.Helper()
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	if err := os.Truncate(file, size); err != nil {
		t.Fatal(err)
	}
	hung := false
	kill := time.AfterFunc(30*time.Second, func() { hung = true; cmd.Process.Signal(os.Interrupt) })
	err := cmd.Wait()
	kill.Stop()
	code := cmd.ProcessState.ExitCode()
	msg := stderr.String()
	switch {
	case hung:
		t.Errorf("%v: still running after 30 s (%s truncated under it); stderr %q", args, file, msg)
	case code < 0 || code > 2 || strings.Count(msg, "\n") > 1 || strings.Contains(msg, "goroutine ") || strings.Contains(msg, "runtime error"):
		t.Errorf("%v: %v, stderr:\n%.2000s", args, err, msg)
	}
	first, _, _ := strings.Cut(msg, ":")
	return args[1] + " status " + string(rune('0'+code)) + " " + first
}
