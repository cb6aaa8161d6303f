//go:build linux

package perfevent

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"golang.org/x/sys/unix"
)

var capture = flag.Bool("capture", false, "write the raw records of TestKsymbolLive to testdata/fuzz/FuzzParse")

// openOrSkip opens a Reader, or skips the test when perf events or
// ksymbol records are unavailable here.
func openOrSkip(tb testing.TB, opts *Options) *Reader {
	tb.Helper()
	r, err := Open(opts)
	if err != nil {
		tb.Skipf("perf events unavailable: %v", err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

// loadOrSkip loads the trivial socket filter called name, or skips.
func loadOrSkip(tb testing.TB, name string) *os.File {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("not root: loading a BPF program needs CAP_BPF")
	}
	f, err := bpfsys.LoadSocketFilter(name)
	if err != nil {
		tb.Skipf("cannot load a BPF program: %v", err)
	}
	return f
}

// readUntil appends records to all until one satisfies ok or 5 seconds
// pass.
func readUntil(tb testing.TB, r *Reader, all []Record, ok func(Record) bool) []Record {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		n := len(all)
		var err error
		all, err = r.Read(ctx, all)
		if err != nil {
			tb.Fatalf("Read: %v (%d records so far)", err, len(all))
		}
		for _, rec := range all[n:] {
			if ok(rec) {
				return all
			}
		}
	}
}

// TestKsymbolLive loads and unloads a program and checks the register and
// unregister records of its symbol, bpf_prog_<tag>_<name>, and the BPF
// events of its load and unload: the oracle is the kernel's own
// /proc/kallsyms line for the program.
func TestKsymbolLive(t *testing.T) {
	r := openOrSkip(t, &Options{BPFEvents: true})
	var mu sync.Mutex
	var raws [][]byte
	r.raw = func(_ int, b []byte) {
		mu.Lock()
		raws = append(raws, append([]byte(nil), b...))
		mu.Unlock()
	}
	const name = "kmeta_perf_t"
	before := Now()
	f := loadOrSkip(t, name)
	addr, ok := kallsymsAddr(t, "_"+name)
	if !ok {
		f.Close()
		t.Fatal("the loaded program is not in /proc/kallsyms")
	}
	isOurs := func(rec Record) bool { return rec.Type == RecordKsymbol && strings.HasSuffix(rec.Name, "_"+name) }
	recs := readUntil(t, r, nil, isOurs)
	f.Close()
	recs = readUntil(t, r, recs, func(rec Record) bool { return rec.Type == RecordBPFEvent && rec.BPFType == BPFEventProgUnload })
	var got []string
	for _, rec := range recs {
		switch {
		case isOurs(rec):
			if rec.Addr != addr || rec.Len == 0 || rec.KsymType != KsymTypeBPF || rec.Time < before || rec.Time > Now() {
				t.Errorf("record %+v: want address %#x from kallsyms, a length, type BPF and a time after %d", rec, addr, before)
			}
			got = append(got, fmt.Sprintf("ksymbol unregister=%v", rec.Unregister()))
		case rec.Type == RecordBPFEvent && rec.ProgID != 0:
			got = append(got, fmt.Sprintf("bpf_event %d", rec.BPFType))
		}
	}
	t.Logf("records: %q", got)
	if want := "ksymbol unregister=false,bpf_event 1,ksymbol unregister=true,bpf_event 2"; strings.Join(got, ",") != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if *capture {
		writeSeeds(t, raws)
	}
}

// writeSeeds writes each raw record into the fuzz corpus of FuzzParse.
func writeSeeds(tb testing.TB, raws [][]byte) {
	dir := filepath.Join("testdata", "fuzz", "FuzzParse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, b := range raws {
		sum := sha256.Sum256(b)
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("live-%x", sum[:8])), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Logf("wrote %d seeds to %s", len(raws), dir)
}

// kallsymsAddr returns the address of the [bpf] symbol of /proc/kallsyms
// whose name ends in suffix.
func kallsymsAddr(tb testing.TB, suffix string) (uint64, bool) {
	tb.Helper()
	b, err := os.ReadFile("/proc/kallsyms")
	if err != nil {
		tb.Skip(err)
	}
	for line := range strings.Lines(string(b)) {
		fs := strings.Fields(line)
		if len(fs) == 4 && fs[3] == "[bpf]" && strings.HasSuffix(fs[2], suffix) {
			var a uint64
			fmt.Sscanf(fs[0], "%x", &a)
			return a, true
		}
	}
	return 0, false
}

// TestCloseInterruptsRead checks that Close and a done context end a
// blocked Read.
func TestCloseInterruptsRead(t *testing.T) {
	r := openOrSkip(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.Read(ctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read with a deadline: %v", err)
	}
	go func() { time.Sleep(50 * time.Millisecond); r.Close() }()
	if _, err := r.Read(context.Background(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string]string{"0": "[0]", "0-3,6": "[0 1 2 3 6]", "0-1": "[0 1]"} {
		got, err := parseCPUList(in)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("parseCPUList(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "3-1", "-1", "0-99999999"} {
		if got, err := parseCPUList(in); err == nil {
			t.Errorf("parseCPUList(%q) = %v, want an error", in, got)
		}
	}
}

// TestLost overflows a one-page ring with the records of 60 loads and
// unloads, and checks that the kernel's PERF_RECORD_LOST comes through.

func TestLost(t *testing.T) {
	r := openOrSkip(t, &Options{Pages: 1, BPFEvents: true})
	var raws [][]byte
	r.raw = func(_ int, b []byte) {
		if len(raws) < 2 && mustParse(t, b).Type == RecordLost {
			raws = append(raws, append([]byte(nil), b...))
		}
	}
	pinToOneCPU(t) // so that every record goes to one ring
	for i := range 60 {
		f := loadOrSkip(t, fmt.Sprintf("kmeta_lost_%d", i))
		f.Close()
	}
	// The kernel writes the lost record once the ring has room again: read
	// what it holds, then make one more record.
	recs := readUntil(t, r, nil, func(Record) bool { return true })
	f := loadOrSkip(t, "kmeta_lost_x")
	f.Close()
	recs = readUntil(t, r, recs, func(rec Record) bool { return rec.Type == RecordLost })
	var lost uint64
	for _, rec := range recs {
		lost += rec.Lost
	}
	if lost == 0 {
		t.Errorf("lost records counted 0")
	}
	t.Logf("%d records read, %d lost", len(recs), lost)
	if *capture {
		writeSeeds(t, raws)
	}
}

func mustParse(tb testing.TB, b []byte) Record {
	tb.Helper()
	rec, _, err := Parse(b, true)
	if err != nil {
		tb.Fatal(err)
	}
	return rec
}

// pinToOneCPU runs the calling goroutine on its thread, bound to the CPU
// it is on, until the test ends.
func pinToOneCPU(tb testing.TB) {
	tb.Helper()
	runtime.LockOSThread()
	var old, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		tb.Skipf("sched_getaffinity: %v", err)
	}
	for c := range 1 << 10 {
		if old.IsSet(c) {
			one.Set(c)
			break
		}
	}
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		runtime.UnlockOSThread()
		tb.Skipf("sched_setaffinity: %v", err)
	}
	tb.Cleanup(func() {
		unix.SchedSetaffinity(0, &old)
		runtime.UnlockOSThread()
	})
}
