package lazyfuzz_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestCloseWhileUsed starts every user of a Spec (specUsers), twice
// each, on one Spec of each Variant13 (256 members) made four ways
// (Parse eager and lazy, Open of a file, which maps it, and Read, which
// holds it in anonymous memory), and closes it at a random moment in
// the first 30 us a member (7.7 ms; the users run for about 25 ms),
// under GOMAXPROCS 1 and 4: each user returns (an error or an answer),
// none panics, faults or hangs (redteam13's finding 2; btf/BENCH.md,
// "Close beside its users"). -v logs how many closes landed while users
// still ran (31 of 32, typically). About 0.8 s; KMETA_CLOSE_ROUNDS
// (default 1), KMETA_CLOSE_US and KMETA_CLOSE_SIZE change the rounds,
// the window a member and the members.
func TestCloseWhileUsed(t *testing.T) {
	rounds, size, within := 1, 256, 30*time.Microsecond
	if n, err := strconv.Atoi(os.Getenv("KMETA_CLOSE_ROUNDS")); err == nil {
		rounds = n
	}
	if n, err := strconv.Atoi(os.Getenv("KMETA_CLOSE_US")); err == nil {
		within = time.Duration(n) * time.Microsecond
	}
	if n, err := strconv.Atoi(os.Getenv("KMETA_CLOSE_SIZE")); err == nil {
		size = n
	}
	ins := map[string][]byte{}
	for _, v := range hostile.Variant13s() {
		raw, err := hostile.BuildVariant13(v, size)
		if err != nil {
			t.Fatal(err)
		}
		ins[v.String()] = raw
	}
	dir := t.TempDir()
	for name, raw := range ins {
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	users := specUsers()
	var mid, all int
	defer func() { t.Logf("%d of %d closes landed while users ran", mid, all) }()
	for _, procs := range []int{1, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for r := range rounds {
				for name, raw := range ins {
					path := filepath.Join(dir, name)
					opens := map[string]func() (*btf.Spec, error){
						// A file's mapping, and anonymous memory of its own.
						"open": func() (*btf.Spec, error) { return btf.Open(context.Background(), path, btf.Options{}) },
						"read": func() (*btf.Spec, error) { return btf.Read(context.Background(), bytes.NewReader(raw), btf.Options{}) },
					}
					for how, open := range opens {
						all++
						after := time.Duration(rand.Int64N(int64(time.Duration(size) * within)))
						if closeOpenedWhileUsed(t, fmt.Sprintf("procs %d round %d %s %s", procs, r, name, how), open, users, 2, after) {
							mid++
						}
					}
					for _, lazy := range []bool{false, true} {
						all++
						after := time.Duration(rand.Int64N(int64(time.Duration(size) * within)))
						if closeWhileUsed(t, fmt.Sprintf("procs %d round %d %s lazy %v", procs, r, name, lazy), raw, lazy, users, 2, after) {
							mid++
						}
					}
				}
			}
		}()
	}
}

// closeWhileUsed parses raw, starts copies goroutines of each of users on
// the Spec, closes it after after, and fails t if a user panics or is
// still running hangLimit later; it reports whether a user still ran at
// the Close.
func closeWhileUsed(t *testing.T, what string, raw []byte, lazy bool, users []func(*btf.Spec) string, copies int, after time.Duration) (mid bool) {
	t.Helper()
	return closeOpenedWhileUsed(t, what, func() (*btf.Spec, error) { return btf.Parse(raw, btf.Options{Lazy: lazy}) }, users, copies, after)
}

// closeOpenedWhileUsed is closeWhileUsed on the Spec that open returns.
func closeOpenedWhileUsed(t *testing.T, what string, open func() (*btf.Spec, error), users []func(*btf.Spec) string, copies int, after time.Duration) (mid bool) {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var running atomic.Int32
	panics := make(chan string, copies*len(users))
	for range copies {
		for i, u := range users {
			running.Add(1)
			wg.Go(func() {
				defer running.Add(-1)
				defer func() {
					if r := recover(); r != nil {
						panics <- fmt.Sprintf("user %d: %v\n%s", i, r, debug.Stack())
					}
				}()
				u(s)
			})
		}
	}
	time.Sleep(after)
	mid = running.Load() > 0
	s.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangLimit):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s closed after %v: users still running %v later:\n%s", what, after, hangLimit, buf)
	}
	close(panics)
	for p := range panics {
		t.Errorf("%s closed after %v: %s", what, after, p)
	}
	return mid
}
