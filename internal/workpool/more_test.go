package workpool

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// noLeak fails the test if goroutines started during it are still running
// once it ends (after a short grace period for their exit).
func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		for range 100 {
			if runtime.NumGoroutine() <= before {
				return
			}
			time.Sleep(time.Millisecond)
		}
		t.Errorf("%d goroutines before, %d after", before, runtime.NumGoroutine())
	})
}

func TestProgress(t *testing.T) {
	noLeak(t)
	for _, workers := range []int{0, 1, 4, 16} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			check := func(name string, run func(Options) error) {
				var calls []int
				var inside atomic.Int32
				err := run(Options{Workers: workers, Progress: func(done int) {
					if inside.Add(1) != 1 {
						t.Errorf("%s: Progress calls overlap", name)
					}
					calls = append(calls, done)
					inside.Add(-1)
				}})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(calls) != 300 {
					t.Fatalf("%s: %d calls of Progress, want 300", name, len(calls))
				}
				for i, c := range calls {
					if c != i+1 {
						t.Fatalf("%s: call %d reported %d", name, i, c)
					}
				}
			}
			check("ForEach", func(o Options) error {
				return ForEach(context.Background(), 300, o, func(int) error { return nil })
			})
			check("Ordered", func(o Options) error {
				return Ordered(context.Background(), 300, o,
					func(i int) (int, error) { return i, nil },
					func(int, int) error { return nil }, nil)
			})
		})
	}
}

func TestEmpty(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fail := func(int) error { t.Fatal("called"); return nil }
	if err := ForEach(ctx, 0, Options{}, fail); err != nil {
		t.Fatalf("ForEach: %v", err)
	}
	if err := Ordered(ctx, 0, Options{}, func(int) (int, error) { return 0, fail(0) }, func(int, int) error { return fail(0) }, nil); err != nil {
		t.Fatalf("Ordered: %v", err)
	}
	Chunks(4, 0, 10, func(int, int, int) { t.Fatal("called") })
}

// TestContention runs many short jobs on more workers than CPUs, all
// updating shared state, so that -race sees the pool's hand-offs under
// real contention.
func TestContention(t *testing.T) {
	noLeak(t)
	const n = 5000
	var mu sync.Mutex
	seen := make(map[int]bool)
	err := ForEach(context.Background(), n, Options{Workers: 4 * runtime.GOMAXPROCS(0)}, func(i int) error {
		mu.Lock()
		seen[i] = true
		mu.Unlock()
		return nil
	})
	if err != nil || len(seen) != n {
		t.Fatalf("ForEach: %v, %d seen", err, len(seen))
	}
	vals := make([]int, n) // written by the producers, read by consume
	sum := 0
	err = Ordered(context.Background(), n, Options{Workers: 4 * runtime.GOMAXPROCS(0), Ahead: 3},
		func(i int) (*int, error) {
			vals[i] = i
			return &vals[i], nil
		},
		func(i int, v *int) error {
			sum += *v
			return nil
		}, nil)
	if want := n * (n - 1) / 2; err != nil || sum != want {
		t.Fatalf("Ordered: %v, sum %d, want %d", err, sum, want)
	}
}

func TestChunks(t *testing.T) {
	noLeak(t)
	for _, workers := range []int{0, 1, 2, 3, 64} {
		for _, c := range []struct{ n, chunk int }{{1, 1}, {10, 3}, {1000, 7}, {1000, 1000}, {1000, 4096}, {5, 0}} {
			t.Run(fmt.Sprintf("workers=%d/n=%d/chunk=%d", workers, c.n, c.chunk), func(t *testing.T) {
				hits := make([]atomic.Int32, c.n)
				var mu sync.Mutex
				last := map[int]int{} // per worker, the last hi
				Chunks(workers, c.n, c.chunk, func(w, lo, hi int) {
					if w < 0 || w >= Workers(workers, c.n) {
						t.Errorf("worker %d of %d", w, workers)
					}
					if lo >= hi || hi > c.n || hi-lo > max(c.chunk, 1) {
						t.Errorf("chunk [%d, %d)", lo, hi)
					}
					mu.Lock()
					if lo < last[w] {
						t.Errorf("worker %d went down from %d to %d", w, last[w], lo)
					}
					last[w] = hi
					mu.Unlock()
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				})
				for i := range hits {
					if h := hits[i].Load(); h != 1 {
						t.Fatalf("element %d done %d times", i, h)
					}
				}
			})
		}
	}
}

// TestChunksCaller checks that one worker means the calling goroutine
// alone: fn can then use the caller's state without a lock.
func TestChunksCaller(t *testing.T) {
	before := runtime.NumGoroutine()
	Chunks(1, 100, 1, func(w, lo, hi int) {
		if w != 0 || runtime.NumGoroutine() != before {
			t.Fatalf("worker %d, %d goroutines, want the caller alone", w, runtime.NumGoroutine())
		}
	})
}

// TestNoLeakOnStop checks that every job started is accounted for when a
// run stops early: none runs after the call returns.
func TestNoLeakOnStop(t *testing.T) {
	noLeak(t)
	for range 20 {
		var running atomic.Int32
		stopped := atomic.Bool{}
		job := func(i int) error {
			running.Add(1)
			defer running.Add(-1)
			time.Sleep(20 * time.Microsecond)
			if stopped.Load() {
				t.Error("a job runs after the call returned")
			}
			if i == 30 {
				return errors.New("stop")
			}
			return nil
		}
		if err := ForEach(context.Background(), 1000, Options{Workers: 8}, job); err == nil {
			t.Fatal("no error")
		}
		stopped.Store(true)
		if r := running.Load(); r != 0 {
			t.Fatalf("%d jobs running after ForEach returned", r)
		}
		stopped.Store(false)
		err := Ordered(context.Background(), 1000, Options{Workers: 8, Ahead: 16},
			func(i int) (int, error) { return i, job(i) },
			func(int, int) error { return nil }, nil)
		if err == nil {
			t.Fatal("no error")
		}
		stopped.Store(true)
		if r := running.Load(); r != 0 {
			t.Fatalf("%d jobs running after Ordered returned", r)
		}
	}
}

func TestWorkers(t *testing.T) {
	for _, c := range []struct{ workers, n, want int }{
		{1, 10, 1}, {4, 10, 4}, {4, 2, 2}, {4, 0, 1}, {0, 1, 1},
		{0, 1 << 20, runtime.GOMAXPROCS(0)}, {-1, 1 << 20, runtime.GOMAXPROCS(0)},
	} {
		if got := Workers(c.workers, c.n); got != c.want {
			t.Errorf("Workers(%d, %d) = %d, want %d", c.workers, c.n, got, c.want)
		}
	}
}
