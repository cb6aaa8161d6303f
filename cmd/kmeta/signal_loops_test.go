package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestSignalInLongLoops interrupts commands in the middle of their work on
// inputs of a million types and more, at two points, and checks that each
// returns by itself, having seen its cancelled context: with exitGrace
// lengthened (envTestGrace), a command that did not would print graceLine
// or be killed, and one that finished its work regardless would spend
// far more CPU time after the signal than a check of the context costs.
// CPU time, not wall time, so that a loaded machine does not fail it.
func TestSignalInLongLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds inputs of 20 MB and runs a dozen commands on them")
	}
	childrenOnly(t)
	bin := buildKmeta(t)
	dir := t.TempDir()
	shared := writeHostile(t, dir, "shared.btf", func() ([]byte, error) { return hostile.BuildProbe(hostile.SharedName, 300_000) })
	ptrs := writeHostile(t, dir, "ptrs.btf", func() ([]byte, error) { return hostile.Build(hostile.Pointers, 2_000_000) })
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dump c shared-name", []string{"btf", "dump", "--format", "c", shared}},
		{"dump c pointers", []string{"btf", "dump", "--format", "c", ptrs}},
		{"diff shared-name", []string{"btf", "diff", shared, shared}},
		{"layout shared-name", []string{"btf", "layout", "x", shared}},
		{"find shared-name", []string{"btf", "find", "x", shared}},
		{"dump pointers", []string{"btf", "dump", ptrs}},
	} {
		// The points are a quarter and a half of the whole run's CPU
		// time, which differs by machine.
		whole := cpuOfRun(t, bin, tc.args)
		for _, at := range []time.Duration{whole / 4, whole / 2} {
			t.Run(fmt.Sprintf("%s at %v of %v", tc.name, at.Round(10*time.Millisecond), whole.Round(10*time.Millisecond)), func(t *testing.T) {
				if at < 50*time.Millisecond {
					t.Skipf("the whole run takes %v of CPU time: too short to interrupt", whole)
				}
				after := interruptAt(t, bin, tc.args, at)
				// A check of the context, the unwinding and the exit
				// take a few tens of ms; the work left, hundreds, and
				// at least half the whole run. The bound grows with the
				// whole run: under -race (the binary is the race-built
				// test binary) every step is about 16 times slower, and
				// dump c shared-name spent 167-425 ms after SIGINT of a
				// 17-18 s run (1.08 s without -race).
				if bound := max(150*time.Millisecond, whole/8); after > bound {
					t.Errorf("%v of CPU time after SIGINT, over %v: the command did not stop its work", after, bound)
				}
			})
		}
	}
}

// cpuOfRun runs kmeta with args to the end, its output discarded, and
// returns the CPU time it used.
func cpuOfRun(t *testing.T, bin string, args []string) time.Duration {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("kmeta %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// writeHostile writes what build makes to dir/name and returns its path.
func writeHostile(t *testing.T, dir, name string, build func() ([]byte, error)) string {
	t.Helper()
	b, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, b)
}

// interruptAt runs kmeta with args, sends it SIGINT once it has used at of
// CPU time, checks that it ends by itself with status 130 and the one
// line, and returns the CPU time it used after the signal.
func interruptAt(t *testing.T, bin string, args []string, at time.Duration) time.Duration {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), envTestGrace+"=60s")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(90*time.Second, func() { cmd.Process.Kill() })
	defer kill.Stop()
	var used time.Duration
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		var running bool
		var err error
		if used, running, err = cpuTime(cmd.Process.Pid); err != nil || !running || used >= at {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130 (interrupted after %v of CPU time); stderr %q", err, used, stderr.String())
	}
	if want := "kmeta: " + (signalCause{sig: syscall.SIGINT}).Error() + "\n"; stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - used
}

// cpuTime returns the user and system time process pid has used, from
// /proc, in clock ticks of 10 ms, and whether it is still running (not a
// zombie that waits to be reaped).
func cpuTime(pid int) (used time.Duration, running bool, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false, err
	}
	// The fields after the command name, which is in parentheses: utime
	// and stime are the 12th and 13th.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, false, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(u+s) * 10 * time.Millisecond, f[0] != "Z", nil
}
