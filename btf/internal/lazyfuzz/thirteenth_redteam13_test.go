package lazyfuzz_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// thirteenthSizes are the members in all of each variant of the
// thirteenth campaign (issue 37, redteam13) that these tests build: a
// small size in plain go test, the campaign's largest with KMETA_HEAVY=1.
var thirteenthSizes = map[hostile.Variant13][2]int{
	hostile.MovedMembers: {256, 1_000_000}, hostile.RepeatNames: {256, 1_000_000},
	hostile.AnonOneOffset: {256, 300_000}, hostile.WideUnion: {256, 300_000},
}

// thirteenthInputs builds each variant at its size.
func thirteenthInputs(t *testing.T) map[string][]byte {
	t.Helper()
	heavy := 0
	if testfixtures.Heavy() {
		heavy = 1
	}
	ins := map[string][]byte{}
	for _, v := range hostile.Variant13s() {
		n := thirteenthSizes[v][heavy]
		raw, err := hostile.BuildVariant13(v, n)
		if err != nil {
			t.Fatal(err)
		}
		ins[fmt.Sprintf("%v-%d", v, n)] = raw
	}
	return ins
}

// TestThirteenthShared runs every user of a Spec (specUsers) on each
// variant of the thirteenth campaign, alone and then all at once on one
// Spec, eager and lazy, under GOMAXPROCS 2: the same answers. With
// KMETA_HEAVY=1 (the campaign's largest sizes) it logs the peak RSS the
// shared run adds against the largest a user alone adds. About 1 s
// without KMETA_HEAVY=1.
func TestThirteenthShared(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for name, raw := range thirteenthInputs(t) {
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/lazy=%v", name, lazy), func(t *testing.T) {
				var alone float64
				if testfixtures.Heavy() {
					for _, u := range specUsers() {
						s, err := btf.Parse(raw, btf.Options{Lazy: lazy})
						if err != nil {
							t.Fatal(err)
						}
						runtime.GC()
						rss := resetPeak()
						u(s)
						alone = max(alone, float64(peakRSS()-rss)/(1<<20))
						s.Close()
					}
				}
				runtime.GC()
				rss := resetPeak()
				start := time.Now()
				shared(t, raw, lazy)
				if testfixtures.Heavy() {
					t.Logf("%s lazy %v: shared run %v, peak +%.1f MB; the heaviest user alone +%.1f MB; input %.1f MB",
						name, lazy, time.Since(start).Round(time.Millisecond), float64(peakRSS()-rss)/(1<<20), alone, float64(len(raw))/(1<<20))
				}
			})
		}
	}
}

// TestThirteenthCloseWhileUsed starts every user of a Spec (specUsers) on
// one Spec parsed from memory of each Variant13 of 65,535 members and
// closes it while they run, after 0, 1, 10 and 50 ms: each returns (an error or an answer), none panics, none
// hangs. Specs that Open maps or Read holds are closed under their
// users by TestCloseWhileUsed.
//
// redteam13's finding 2 (a slice-bounds panic, layout's check looping)
// is fixed; TestCloseWhileUsed is its cheap form in plain go test. This
// one, 4 s and more, runs with KMETA_HEAVY=1 (or KMETA_RT13_OPEN=1).
func TestThirteenthCloseWhileUsed(t *testing.T) {
	if !testfixtures.Heavy() && os.Getenv("KMETA_RT13_OPEN") != "1" {
		t.Skip("4 s and more; TestCloseWhileUsed is the cheap form: set KMETA_HEAVY=1")
	}
	// 65,535 members: the users run for tens of milliseconds, so that
	// the Close lands in the middle of their walks.
	for _, v := range hostile.Variant13s() {
		raw, err := hostile.BuildVariant13(v, 65_535)
		if err != nil {
			t.Fatal(err)
		}
		name := v.String()
		for _, lazy := range []bool{false, true} {
			for _, after := range []time.Duration{0, time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond} {
				closeWhileUsed(t, fmt.Sprintf("%s lazy %v", name, lazy), raw, lazy, specUsers(), 1, after)
			}
		}
	}
}

// TestThirteenthCancel cancels every consumer that takes a context
// (specAPIs) on each variant of the thirteenth campaign, half way and,
// with KMETA_HEAVY=1, after 10 and 100 ms, as TestCancelProbe does: each
// returns ctx.Err() wrapped (or the answer, if it finished), leaves no
// goroutine behind; KMETA_RT7_TABLE=1 logs the latencies.
func TestThirteenthCancel(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	obj, err := bpfelf.Parse(testfixtures.Read(t, "core/matches.bpf.o.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for name, raw := range thirteenthInputs(t) {
		probeSpecs(t, &table, &ctxInput{name: name, raw: raw, path: writeTemp(t, tmp, raw), obj: obj})
	}
	logProbeTable(t, &table)
}

// writeTemp writes raw to a file named like probeInputs' ("in-"), which
// checkNoLeaks leaves alone.
func writeTemp(t *testing.T, dir string, raw []byte) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "in-")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(raw); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// TestThirteenthUseAfterClose runs every user of a Spec (specUsers) on a
// Spec closed before: the package says lookups return ErrClosed and views
// zero values, so each must return, without a panic, in time.
func TestThirteenthUseAfterClose(t *testing.T) {
	for name, raw := range thirteenthInputs(t) {
		for _, lazy := range []bool{false, true} {
			s, err := btf.Parse(raw, btf.Options{Lazy: lazy})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			for i, u := range specUsers() {
				done := make(chan string, 1)
				go func() {
					defer func() {
						if r := recover(); r != nil {
							done <- fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
						}
					}()
					u(s)
					done <- ""
				}()
				select {
				case p := <-done:
					if p != "" {
						t.Errorf("%s lazy %v: user %d on a closed Spec: %s", name, lazy, i, p)
					}
				case <-time.After(hangLimit):
					buf := make([]byte, 1<<20)
					buf = buf[:runtime.Stack(buf, true)]
					t.Fatalf("%s lazy %v: user %d on a closed Spec still running %v later:\n%s", name, lazy, i, hangLimit, buf)
				}
			}
		}
	}
}
