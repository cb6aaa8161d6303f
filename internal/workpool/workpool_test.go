package workpool

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func TestForEachRunsAll(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 100} {
		var ran [50]atomic.Int32
		if err := ForEach(context.Background(), len(ran), Options{Workers: jobs}, func(i int) error {
			ran[i].Add(1)
			return nil
		}); err != nil {
			t.Fatalf("jobs %d: %v", jobs, err)
		}
		for i := range ran {
			if n := ran[i].Load(); n != 1 {
				t.Fatalf("jobs %d: item %d ran %d times", jobs, i, n)
			}
		}
	}
}

func TestForEachFirstErrorInOrder(t *testing.T) {
	// Items 7 and 3 fail; 7 fails at once and 3 late: the error reported is
	// 3's, whatever the scheduling.
	for range 20 {
		err := ForEach(context.Background(), 10, Options{Workers: 4}, func(i int) error {
			switch i {
			case 3:
				time.Sleep(2 * time.Millisecond)
				return errors.New("three")
			case 7:
				return errors.New("seven")
			}
			return nil
		})
		if err == nil || (err.Error() != "three" && err.Error() != "seven") {
			t.Fatalf("err = %v", err)
		}
		// 3 is always started before 7 is handed out, so it always runs.
		if err.Error() != "three" {
			t.Fatalf("err = %v, want the first failed item's", err)
		}
	}
}

func TestForEachStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
	err := ForEach(ctx, 1000, Options{Workers: 2}, func(i int) error {
		if started.Add(1) == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := started.Load(); n > 10 {
		t.Fatalf("%d items started after the cancel", n)
	}
}

func TestOrdered(t *testing.T) {
	for _, jobs := range []int{1, 2, 8} {
		for _, ahead := range []int{1, 3, 64} {
			t.Run(fmt.Sprintf("jobs=%d/ahead=%d", jobs, ahead), func(t *testing.T) {
				var live, peak atomic.Int32
				next := 0
				err := Ordered(context.Background(), 200, Options{Workers: jobs, Ahead: ahead},
					func(i int) (int, error) {
						if n := live.Add(1); n > peak.Load() {
							peak.Store(n)
						}
						if i%7 == 0 {
							time.Sleep(50 * time.Microsecond) // out of order
						}
						return i * i, nil
					},
					func(i, v int) error {
						live.Add(-1)
						if i != next || v != i*i {
							return fmt.Errorf("got item %d (%d), want %d", i, v, next)
						}
						next++
						return nil
					}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if next != 200 {
					t.Fatalf("consumed %d of 200", next)
				}
				// Produced and not yet consumed: at most ahead, plus the
				// one being received.
				if p := int(peak.Load()); p > ahead+1 {
					t.Fatalf("%d values waiting, want at most %d", p, ahead+1)
				}
			})
		}
	}
}

func TestOrderedErrorDiscards(t *testing.T) {
	for _, failIn := range []string{"produce", "consume"} {
		t.Run(failIn, func(t *testing.T) {
			var produced, consumed, discarded atomic.Int32
			err := Ordered(context.Background(), 100, Options{Workers: 3, Ahead: 8},
				func(i int) (int, error) {
					if failIn == "produce" && i == 20 {
						return 0, errors.New("boom")
					}
					produced.Add(1)
					return i, nil
				},
				func(i, v int) error {
					if failIn == "consume" && i == 20 {
						discarded.Add(1) // consume owns v when it fails
						return errors.New("boom")
					}
					consumed.Add(1)
					return nil
				},
				func(int) { discarded.Add(1) })
			if err == nil || err.Error() != "boom" {
				t.Fatalf("err = %v, want boom", err)
			}
			if consumed.Load() != 20 {
				t.Fatalf("consumed %d, want 20", consumed.Load())
			}
			// Every produced value is either consumed or discarded.
			if p, c, d := produced.Load(), consumed.Load(), discarded.Load(); c+d != p {
				t.Fatalf("produced %d, consumed %d, discarded %d", p, c, d)
			}
		})
	}
}

func TestOrderedCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	block := make(chan struct{})
	var produced, discarded atomic.Int32
	done := make(chan error)
	go func() {
		done <- Ordered(ctx, 100, Options{Workers: 2, Ahead: 4},
			func(i int) (int, error) {
				if i == 0 {
					<-block // the first item hangs until the cancel
				}
				produced.Add(1)
				return i, nil
			},
			func(i, v int) error { return nil },
			func(int) { discarded.Add(1) })
	}()
	time.Sleep(5 * time.Millisecond)
	cancel()
	time.Sleep(5 * time.Millisecond)
	close(block)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if p, d := produced.Load(), discarded.Load(); p != d {
		t.Fatalf("produced %d, discarded %d", p, d)
	}
}
