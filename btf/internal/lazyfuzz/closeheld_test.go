package lazyfuzz_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestCloseWhileUsed starts every user of a Spec (specUsers), twice
// each, on one Spec parsed from memory of each Variant13, and closes it
// at a random moment while they run, under GOMAXPROCS 1 and 4: each user
// returns (an error or an answer), none panics, none hangs. Rounds
// (KMETA_CLOSE_ROUNDS, default 2) repeat it with new moments; a few
// hundred ms a round.
func TestCloseWhileUsed(t *testing.T) {
	rounds, size := 2, 256
	if n, err := strconv.Atoi(os.Getenv("KMETA_CLOSE_ROUNDS")); err == nil {
		rounds = n
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
	users := specUsers()
	for _, procs := range []int{1, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for r := range rounds {
				for name, raw := range ins {
					for _, lazy := range []bool{false, true} {
						closeWhileUsed(t, fmt.Sprintf("procs %d round %d %s lazy %v", procs, r, name, lazy), raw, lazy, users, time.Duration(size)*12*time.Microsecond)
					}
				}
			}
		}()
	}
}

func closeWhileUsed(t *testing.T, what string, raw []byte, lazy bool, users []func(*btf.Spec) string, within time.Duration) {
	t.Helper()
	s, err := btf.Parse(raw, btf.Options{Lazy: lazy})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	panics := make(chan string, 2*len(users))
	for range 2 {
		for i, u := range users {
			wg.Go(func() {
				defer func() {
					if r := recover(); r != nil {
						panics <- fmt.Sprintf("user %d: %v\n%s", i, r, debug.Stack())
					}
				}()
				u(s)
			})
		}
	}
	after := time.Duration(rand.Int64N(int64(within)))
	time.Sleep(after)
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
}
