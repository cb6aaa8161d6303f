//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// lockedBuffer is a bytes.Buffer that the command writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// watcher is "ksym watch --json" running on the running kernel.
type watcher struct {
	out    lockedBuffer
	cancel context.CancelFunc
	done   chan error
}

// startWatch starts the command and waits for its loaded line; it skips
// the test when it does not follow ksymbol events.
func startWatch(t *testing.T) *watcher {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: needs CAP_BPF, CAP_PERFMON and kallsyms addresses")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{cancel: cancel, done: make(chan error, 1)}
	t.Cleanup(cancel)
	go func() { w.done <- run(ctx, []string{"ksym", "watch", "--json"}, nil, &w.out, &w.out) }()
	w.waitFor(t, "loaded line", func(s string) bool { return strings.Contains(s, `"event":"loaded"`) })
	if !strings.Contains(w.out.String(), `"ksym_events":true`) {
		t.Skipf("ksymbol events unavailable: %s", w.out.String())
	}
	return w
}

func (w *watcher) waitFor(t *testing.T, what string, ok func(string) bool) {
	t.Helper()
	for start := time.Now(); !ok(w.out.String()); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("no %s in the output:\n%s", what, w.out.String())
		}
	}
}

// stop interrupts the command and returns its ksym events of symbols
// whose names end in one of suffixes, as "ACTION KIND NAME ADDR".
func (w *watcher) stop(t *testing.T, suffixes ...string) []string {
	t.Helper()
	w.cancel()
	// An interrupted watch returns the context's cause, which main maps
	// to 130 or 143 as for every command.
	if err := <-w.done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("watch: %v", err)
	}
	var got []string
	for line := range strings.Lines(w.out.String()) {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		n, _ := v["name"].(string)
		for _, suf := range suffixes {
			if v["event"] == "ksym" && strings.HasSuffix(n, "_"+suf) {
				got = append(got, fmt.Sprintf("%s %s %s %s", v["action"], v["ksym_type"], n, v["addr"]))
				if v["size"].(float64) == 0 {
					t.Errorf("event without a length: %s", line)
				}
			}
		}
	}
	return got
}

// TestKsymWatchBPF runs "ksym watch --json" on the running kernel, loads
// and unloads a BPF program, and checks that it printed one add and one
// remove event for the program's symbol, with the address that
// /proc/kallsyms listed for it while it was loaded.
func TestKsymWatchBPF(t *testing.T) {
	w := startWatch(t)
	name := fmt.Sprintf("kmw%d", os.Getpid()%100000)
	f, err := bpfsys.LoadSocketFilter(name)
	if err != nil {
		t.Skipf("cannot load a BPF program: %v", err)
	}
	syms := kallsymsBPF(t, name)
	f.Close()
	if len(syms) != 1 {
		t.Fatalf("kallsyms lists %v for the loaded program", syms)
	}
	w.waitFor(t, "remove event", func(s string) bool { return removes(s, name) == 1 })
	got := w.stop(t, name)
	var want []string
	for a, n := range syms {
		want = append(want, fmt.Sprintf("add bpf %s 0x%x", n, a), fmt.Sprintf("remove bpf %s 0x%x", n, a))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %q, want %q; output:\n%s", got, want, w.out.String())
	}
}

// TestKsymWatchLoadall loads a BPF object with bpftool (prog loadall) and
// unloads it (removing its pins), with "ksym watch --json" running: the
// object's three functions, one a BPF-to-BPF subprogram, must each give
// one add event with the address /proc/kallsyms then lists, and one
// remove event. bpftool's own feature probes are other programs, ignored.
//
// The object's symbols have the same names in every process that loads
// it: two go test processes of this package at once (several sessions
// on one machine) each waited for three remove events of those names,
// got the other's, stopped before their own, and failed (18 of 45 runs,
// three processes at once, 2026-11-30); and /proc/kallsyms listed the
// names twice, whose addresses the test could not tell apart. So the
// test takes a lock shared by every process (ksymTestLock), takes as its
// own the symbols that are new in /proc/kallsyms, and waits for the
// remove event of each of its own addresses.
func TestKsymWatchLoadall(t *testing.T) {
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("bpftool not installed")
	}
	funcs := []string{"kmeta_sub_main", "kmeta_classify", "kmeta_plain"}
	ksymTestLock(t)
	before := kallsymsBPF(t, funcs...)
	w := startWatch(t)
	obj := filepath.Join(t.TempDir(), "subprog.bpf.o")
	if err := os.WriteFile(obj, testfixtures.Read(t, "ksym/subprog.bpf.o.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	pins := fmt.Sprintf("/sys/fs/bpf/kmeta-ksym-test-%d", os.Getpid())
	if out, err := exec.Command(bpftool, "prog", "loadall", obj, pins).CombinedOutput(); err != nil {
		os.RemoveAll(pins)
		t.Skipf("bpftool prog loadall: %v: %s", err, out)
	}
	syms := kallsymsBPF(t, funcs...)
	maps.DeleteFunc(syms, func(a uint64, _ string) bool { _, old := before[a]; return old })
	if err := os.RemoveAll(pins); err != nil {
		t.Fatal(err)
	}
	if len(syms) != len(funcs) {
		t.Fatalf("kallsyms lists %v new for the object's functions %v", syms, funcs)
	}
	w.waitFor(t, "remove events", func(s string) bool { return removedAll(s, syms) })
	time.Sleep(100 * time.Millisecond) // let any duplicate show
	var want []string
	for a, n := range syms {
		want = append(want, fmt.Sprintf("add bpf %s 0x%x", n, a), fmt.Sprintf("remove bpf %s 0x%x", n, a))
	}
	// A process that does not take the lock (another build of this
	// test) may still load the same object: only this test's addresses
	// count.
	got := slices.DeleteFunc(w.stop(t, funcs...), func(e string) bool {
		for a := range syms {
			if strings.HasSuffix(e, fmt.Sprintf(" 0x%x", a)) {
				return false
			}
		}
		return true
	})
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	t.Logf("events:\n%s", strings.Join(got, "\n"))
}

// removes counts the lines of out that are remove events of symbols named
// for one of names.
func removes(out string, names ...string) int {
	n := 0
	for line := range strings.Lines(out) {
		for _, name := range names {
			if strings.Contains(line, `"action":"remove"`) && strings.Contains(line, "_"+name+`"`) {
				n++
			}
		}
	}
	return n
}

// removedAll reports whether out has a remove event for each address of
// syms.
func removedAll(out string, syms map[uint64]string) bool {
	seen := 0
	for line := range strings.Lines(out) {
		if !strings.Contains(line, `"action":"remove"`) {
			continue
		}
		for a := range syms {
			if strings.Contains(line, fmt.Sprintf(`"addr":"0x%x"`, a)) {
				seen++
			}
		}
	}
	return seen >= len(syms)
}

// kallsymsBPF returns the [bpf] symbols of /proc/kallsyms whose names end
// in "_" and one of names, by address: programs of the same name loaded
// by several processes have one address each.
func kallsymsBPF(tb testing.TB, names ...string) map[uint64]string {
	tb.Helper()
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		tb.Skip(err)
	}
	defer f.Close()
	out := map[uint64]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 || fs[3] != "[bpf]" || !slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(fs[2], "_"+n) }) {
			continue
		}
		a, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil {
			tb.Fatal(err)
		}
		out[a] = fs[2]
	}
	return out
}

// ksymTestLock holds, until the test ends, a lock that every process
// running these tests shares: a file in the temporary directory, locked
// with flock(2).
func ksymTestLock(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "kmeta-ksym-watch-test.lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
