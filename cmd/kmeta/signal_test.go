package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestOutputIsInput: an output path naming an input is refused before
// anything is written, whether it exists (same file, any spelling) or not.
func TestOutputIsInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeFile(t, dir, "base.btf", testfixtures.Read(t, testfixtures.DebianVmlinux))
	mod := writeFile(t, dir, "mod.btf", testfixtures.Modules(t)["af_key"])
	before := testfixtures.ReadPath(t, base)
	for _, args := range [][]string{
		{"btf", "copy", "-B", base, mod, "-o", base},
		{"btf", "copy", "-B", base, mod, "-o", filepath.Join(dir, ".", "sub", "..", "base.btf")},
		{"btf", "copy", "-B", base, mod, "-o", mod},
		{"btf", "min", base, "--types", "task_struct", "-o", base},
		{"btf", "copy", filepath.Join(dir, "gone.btf"), "-o", filepath.Join(dir, "gone.btf")},
	} {
		_, err := kmeta(t, nil, args...)
		if err == nil || !strings.Contains(err.Error(), "refusing to overwrite") {
			t.Errorf("%v: err = %v", args, err)
		}
	}
	if after := testfixtures.ReadPath(t, base); string(after) != string(before) {
		t.Fatal("the base was changed")
	}
}

// buildKmeta returns a path to run kmeta from: a link named kmeta to this
// test binary, whose TestMain then runs main. It costs nothing, where a
// go build and link cost seconds of CPU, and the tests run the very code
// they were compiled with.
func buildKmeta(t *testing.T) string {
	t.Helper()
	kmetaBin.once.Do(func() {
		self, err := os.Executable()
		if err != nil {
			kmetaBin.err = err
			return
		}
		dir, err := os.MkdirTemp("", "kmeta-test-bin")
		if err != nil {
			kmetaBin.err = err
			return
		}
		kmetaBin.dir = dir
		kmetaBin.path = filepath.Join(dir, "kmeta")
		kmetaBin.err = os.Symlink(self, kmetaBin.path)
	})
	if kmetaBin.err != nil {
		t.Skipf("cannot link the test binary as kmeta: %v", kmetaBin.err)
	}
	return kmetaBin.path
}

// kmetaBin is the binary buildKmeta built, shared by the tests that run it.
var kmetaBin struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "kmeta" {
		// Started through buildKmeta's link: be the command.
		if g, err := time.ParseDuration(os.Getenv(envTestGrace)); err == nil {
			exitGrace = g
			onGraceExit = func() { fmt.Fprintln(os.Stderr, graceLine) }
		}
		main()
		return
	}
	tuneRuntime = false // commands run in process share it
	code := m.Run()
	if kmetaBin.dir != "" {
		os.RemoveAll(kmetaBin.dir)
	}
	if builtInputs.dir != "" {
		os.RemoveAll(builtInputs.dir)
	}
	testfixtures.RemoveShared()
	os.Exit(code)
}

// envTestGrace, in the environment of a kmeta that buildKmeta's link
// runs, sets its exitGrace, and makes it print graceLine when exitGrace
// ends it: the command did not see its cancelled context by itself.
const envTestGrace = "KMETA_TEST_GRACE"

// graceLine is what kmeta prints under envTestGrace when exitGrace ends it.
const graceLine = "kmeta: test: ended by exitGrace, not by the command"

// TestSignals runs the real binary, interrupts it while it waits on
// standard input, writes a dump into a pipe nobody reads, or writes an
// output file, and checks that it exits promptly with 128+signal and
// leaves no output file behind.
func TestSignals(t *testing.T) {
	t.Parallel()
	bin := buildKmeta(t)
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		sig      syscall.Signal
		stdout   bool // stdout is a pipe that nobody reads
		wantFile bool
	}{
		{"dump from a silent stdin, SIGINT", []string{"btf", "dump", "-"}, syscall.SIGINT, false, false},
		{"copy from a silent stdin, SIGTERM", []string{"btf", "copy", "-", "-o", "OUT"}, syscall.SIGTERM, false, false},
		{"C dump into a full pipe, SIGINT", []string{"btf", "dump", "--format", "c", vmlinux}, syscall.SIGINT, true, false},
		{"raw dump into a full pipe, SIGTERM", []string{"btf", "dump", vmlinux}, syscall.SIGTERM, true, false},
		{"dump from a FIFO nobody writes, SIGINT", []string{"btf", "dump", fifo}, syscall.SIGINT, false, false},
		{"encode from a silent stdin, SIGINT", []string{"btf", "encode", "-", "-o", "OUT"}, syscall.SIGINT, false, false},
		{"dedup from a silent stdin, SIGTERM", []string{"btf", "dedup", "-", "-o", "OUT"}, syscall.SIGTERM, false, false},
		{"core from a FIFO nobody writes, SIGTERM", []string{"btf", "core", fifo}, syscall.SIGTERM, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for i, a := range tc.args {
				if a == "OUT" {
					tc.args[i] = filepath.Join(dir, "out.btf")
				}
			}
			cmd := exec.Command(bin, tc.args...)
			stdinR, stdinW, _ := os.Pipe() // never written, never closed while it runs
			defer stdinW.Close()
			cmd.Stdin = stdinR
			if tc.stdout {
				r, w, _ := os.Pipe()
				defer r.Close()
				cmd.Stdout = w
				defer w.Close()
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stdinR.Close()
			waitBlocked(t, cmd.Process.Pid) // at the blocking read or write
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			kill := time.AfterFunc(15*time.Second, func() { cmd.Process.Kill() })
			defer kill.Stop()
			err := cmd.Wait()
			took := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(tc.sig) {
				t.Fatalf("exit: %v, want status %d; stderr %q", err, 128+int(tc.sig), stderr.String())
			}
			if took > 5*time.Second {
				t.Errorf("took %v to exit", took)
			}
			// One message for every interrupted command (it was "context
			// canceled" for some, "interrupted by interrupt" for others).
			if want := "kmeta: " + (signalCause{sig: tc.sig}).Error() + "\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("left behind: %v", ents)
			}
		})
	}
}

// TestTruncatedInput truncates the file a running kmeta has mapped, while
// kmeta waits to write its dump into a full pipe: its next reads of the
// mapping fault, and kmeta must end with a one-line error and status 2,
// not a crash.
func TestTruncatedInput(t *testing.T) {
	t.Parallel()
	bin := buildKmeta(t)
	path := writeFile(t, t.TempDir(), "vmlinux.btf", testfixtures.Read(t, testfixtures.DebianVmlinux))
	cmd := exec.Command(bin, "btf", "dump", path)
	r, w, _ := os.Pipe()
	cmd.Stdout = w
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	head := make([]byte, 4096)
	if _, err := io.ReadFull(r, head); err != nil { // it has started
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the pipe fills up
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer kill.Stop()
	io.Copy(io.Discard, r)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "changed while it was read") {
		t.Fatalf("exit %v, stderr %q", err, stderr.String())
	}
}

// waitBlocked waits until every thread of process pid has been asleep for
// a few checks in a row: the command then waits on its read or write, and
// has long installed its signal handlers. A fixed sleep was too short on a
// loaded machine. It gives up after 10 s and lets the test go on.
func waitBlocked(t *testing.T, pid int) {
	t.Helper()
	time.Sleep(50 * time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for quiet := 0; quiet < 5 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if allAsleep(pid) {
			quiet++
		} else {
			quiet = 0
		}
	}
}

// allAsleep reports whether every thread of pid is in state S (sleeping),
// from /proc; false if it cannot tell.
func allAsleep(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			return false
		}
		// The state follows the command name, which is in parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'S' {
			return false
		}
	}
	return true
}

// linkMany makes n symbolic links to target in dir, named by pattern and
// their number, and returns their paths: the inputs of a long batch.
func linkMany(t *testing.T, dir, target, pattern string, n int) []string {
	t.Helper()
	links := make([]string, n)
	for i := range links {
		links[i] = filepath.Join(dir, fmt.Sprintf(pattern, i))
		if err := os.Symlink(target, links[i]); err != nil {
			t.Fatal(err)
		}
	}
	return links
}

// startBatch starts kmeta with args, a batch writing into out, and
// returns once out holds ten files (temporary ones: the batch renames
// them at its end), or after 20 seconds. The process is killed if it
// runs past 30 seconds.
func startBatch(t *testing.T, bin string, args []string, out string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr := new(strings.Builder)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	t.Cleanup(func() { kill.Stop() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if ents, _ := os.ReadDir(out); len(ents) >= 10 || time.Now().After(deadline) {
			break
		}
	}
	return cmd, stderr
}

// TestSecondSignalRemovesTemporary interrupts a batch (btf min -d) twice
// once it has written some of its outputs, which wait as temporary files
// for the batch's end: the second signal ends kmeta at once, without
// waiting for the command to clean up, and the temporary files must go
// with it.
func TestSecondSignalRemovesTemporary(t *testing.T) {
	t.Parallel()
	bin := buildKmeta(t)
	dir := testfixtures.MemTempDir(t) // 1,000 symlinks: in memory, not on disk
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	obj := testfixtures.Path(t, "elf/prog.bpf.o.gz")
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// A millisecond or two each: far longer than the test waits.
	args := append([]string{"btf", "min", "-d", out, "--obj", obj}, linkMany(t, dir, vmlinux, "k%d.btf", 1000)...)
	cmd, stderr := startBatch(t, bin, args, out)
	// Two signals, pending together when kmeta resumes: two of one kind
	// would merge into one.
	cmd.Process.Signal(syscall.SIGSTOP)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Process.Signal(syscall.SIGCONT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || (ee.ExitCode() != 128+int(syscall.SIGINT) && ee.ExitCode() != 128+int(syscall.SIGTERM)) {
		t.Fatalf("exit: %v, want status %d or %d; stderr %q", err, 128+int(syscall.SIGINT), 128+int(syscall.SIGTERM), stderr.String())
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("left behind: %d files, the first %s", len(ents), ents[0].Name())
	}
}
