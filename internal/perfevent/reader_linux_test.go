//go:build linux

package perfevent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/bpftest"
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

// readUntil appends records to all until one of them satisfies ok or 5
// seconds pass.
func readUntil(tb testing.TB, r *Reader, all []Record, ok func(Record) bool) []Record {
	tb.Helper()
	if slices.ContainsFunc(all, ok) {
		return all
	}
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
// /proc/kallsyms line for the program. Other processes may load programs
// meanwhile (the same trivial filter, with the same tag): the BPF events
// are matched by the program id of the load event that follows the
// symbol's registration on its CPU.
func TestKsymbolLive(t *testing.T) {
	r := openOrSkip(t, &Options{BPFEvents: true})
	var mu sync.Mutex
	var raws [][]byte
	r.raw = func(_ int, b []byte) {
		mu.Lock()
		raws = append(raws, append([]byte(nil), b...))
		mu.Unlock()
	}
	name := fmt.Sprintf("kmp%d", os.Getpid()%100000)
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
	recs = readUntil(t, r, recs, func(rec Record) bool { return isOurs(rec) && rec.Unregister() })
	var id uint32
	var got []string
	for i, rec := range recs {
		if !isOurs(rec) {
			continue
		}
		if rec.Addr != addr || rec.Len == 0 || rec.KsymType != KsymTypeBPF || rec.Time < before || rec.Time > Now() {
			t.Errorf("record %+v: want address %#x from kallsyms, a length, type BPF and a time after %d", rec, addr, before)
		}
		got = append(got, fmt.Sprintf("ksymbol unregister=%v", rec.Unregister()))
		if !rec.Unregister() {
			for _, ev := range recs[i+1:] {
				if ev.Type == RecordBPFEvent && ev.CPU == rec.CPU && ev.BPFType == BPFEventProgLoad && strings.Contains(rec.Name, hex.EncodeToString(ev.Tag[:])) {
					id = ev.ProgID
					break
				}
			}
		}
	}
	recs = readUntil(t, r, recs, func(rec Record) bool {
		return rec.Type == RecordBPFEvent && rec.ProgID == id && rec.BPFType == BPFEventProgUnload
	})
	got = got[:0]
	for _, rec := range recs {
		switch {
		case isOurs(rec):
			got = append(got, fmt.Sprintf("ksymbol unregister=%v", rec.Unregister()))
		case rec.Type == RecordBPFEvent && rec.ProgID == id:
			got = append(got, fmt.Sprintf("bpf_event %d", rec.BPFType))
		}
	}
	t.Logf("program id %d, records: %q", id, got)
	if want := "ksymbol unregister=false,bpf_event 1,ksymbol unregister=true,bpf_event 2"; id == 0 || strings.Join(got, ",") != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if *capture {
		writeSeeds(t, raws)
	}
}

// TestTwoReaders follows ksymbol records with two readers at once, as two
// processes would: the kernel writes the second one's records longer than
// their fields (see Parse), and both must decode the same symbol at the
// same time.
func TestTwoReaders(t *testing.T) {
	r1, r2 := openOrSkip(t, nil), openOrSkip(t, nil)
	sizes := [2]map[int]bool{{}, {}}
	var mu sync.Mutex
	var grown [][]byte
	for i, r := range []*Reader{r1, r2} {
		r.raw = func(_ int, b []byte) {
			if rec, _, err := Parse(b, true); err == nil && rec.Type == RecordKsymbol {
				mu.Lock()
				sizes[i][len(b)] = true
				if len(b) > 24+(len(rec.Name)+8)&^7+8 && len(grown) < 1 {
					grown = append(grown, append([]byte(nil), b...))
				}
				mu.Unlock()
			}
		}
	}
	name := fmt.Sprintf("kmt%d", os.Getpid()%100000)
	f := loadOrSkip(t, name)
	f.Close()
	isOurs := func(rec Record) bool {
		return rec.Type == RecordKsymbol && strings.HasSuffix(rec.Name, "_"+name) && rec.Unregister()
	}
	var last [2]Record
	for i, r := range []*Reader{r1, r2} {
		for _, rec := range readUntil(t, r, nil, isOurs) {
			if isOurs(rec) {
				last[i] = rec
			}
		}
	}
	// Each event reads the clock itself: the times differ by the kernel's
	// work between the two.
	t0, t1 := last[0].Time, last[1].Time
	last[0].Time, last[1].Time = 0, 0
	if last[0] != last[1] || t0 == 0 || t1 == 0 || max(t0, t1)-min(t0, t1) > 1e9 {
		t.Errorf("the readers decode the unregistration differently:\n%+v at %d\n%+v at %d", last[0], t0, last[1], t1)
	}
	t.Logf("ksymbol record sizes seen by the two readers: %v", sizes)
	if *capture {
		writeSeeds(t, grown)
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
// blocked Read (records of other processes' programs may come first).
func TestCloseInterruptsRead(t *testing.T) {
	r := openOrSkip(t, nil)
	readErr := func(ctx context.Context) error {
		for {
			if _, err := r.Read(ctx, nil); err != nil {
				return err
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := readErr(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read with a deadline: %v", err)
	}
	go func() { time.Sleep(50 * time.Millisecond); r.Close() }()
	if err := readErr(context.Background()); !errors.Is(err, ErrClosed) {
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
	bpftest.PinToOneCPU(t) // so that every record goes to one ring
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

const unprivEnv = "PERFEVENT_TEST_UNPRIVILEGED"

// TestOpenUnprivileged re-executes the test binary as nobody, without
// capabilities (setpriv), where a CPU-wide perf event needs
// kernel.perf_event_paranoid <= 0: Open must fail with an error that
// matches os.ErrPermission and names the setting.
func TestOpenUnprivileged(t *testing.T) {
	if os.Getenv(unprivEnv) == "1" {
		_, err := Open(nil)
		if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "perf_event_paranoid") {
			t.Fatalf("Open as nobody: %v", err)
		}
		t.Logf("Open as nobody: %v", err)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to nobody")
	}
	p, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if n, err2 := strconv.Atoi(strings.TrimSpace(string(p))); err != nil || err2 != nil || n <= 0 {
		t.Skipf("perf_event_paranoid is %q: unprivileged CPU-wide events are allowed", p)
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv not installed")
	}
	// The test binary lies in a directory only root may enter: copy it.
	dir, err := os.MkdirTemp("", "perfevent")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "perfevent.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil || os.Chmod(dir, 0o755) != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
		bin, "-test.run=^TestOpenUnprivileged$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), unprivEnv+"=1")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("setpriv: %v", err)
	}
}
