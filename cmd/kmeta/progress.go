package main

import (
	"fmt"
	"sync"
	"time"
)

// progressDelay is how long a command works before it shows progress: a
// command that ends sooner prints nothing, however it is run. Tests set
// it to 0.
var progressDelay = time.Second

// progressLine is the one line of progress a command shows on a terminal
// stderr, rewritten in place ("\r") and erased when the command ends, so
// that what the command prints stays as it would be without it. It is
// safe for concurrent use.
type progressLine struct {
	c       *cli
	start   time.Time
	mu      sync.Mutex
	shown   bool
	stopped bool
	stop    chan struct{}
	wg      sync.WaitGroup
}

// newProgress returns a progress line on c's stderr, or nil (whose
// methods do nothing) when stderr is not a terminal.
func (c *cli) newProgress() *progressLine {
	if !isTerminal(c.stderr) {
		return nil
	}
	return &progressLine{c: c, start: time.Now(), stop: make(chan struct{})}
}

// show writes text as the progress line, once the command has worked for
// progressDelay.
func (p *progressLine) show(text string) {
	if p == nil || time.Since(p.start) < progressDelay {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.shown = true
	fmt.Fprintf(p.c.stderr, "\r\x1b[K%s", text)
}

// tick shows "kmeta: what (N s)" every quarter second, for work that
// cannot count its steps (a search of every module of a kernel).
func (p *progressLine) tick(what string) *progressLine {
	if p == nil {
		return nil
	}
	line := func(now time.Time) string {
		return fmt.Sprintf("kmeta: %s (%.0f s)", what, now.Sub(p.start).Seconds())
	}
	if progressDelay <= 0 {
		// No delay (the tests): the line shows at once, not when the
		// ticking goroutine first runs, which work shorter than that
		// (on one CPU) would never see.
		p.show(line(time.Now()))
	}
	p.wg.Go(func() {
		next := time.NewTimer(progressDelay)
		defer next.Stop()
		for {
			select {
			case <-p.stop:
				return
			case now := <-next.C:
				p.show(line(now))
				next.Reset(250 * time.Millisecond)
			}
		}
	})
	return p
}

// done erases the progress line, if it was shown, and stops its ticks.
func (p *progressLine) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	close(p.stop)
	if p.shown {
		fmt.Fprint(p.c.stderr, "\r\x1b[K")
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// busy shows "kmeta: what (N s)" while a command works for more than a
// second with stderr on a terminal; the function returned erases it.
func (c *cli) busy(what string) (done func()) {
	return c.newProgress().tick(what).done
}

// progress returns a function that shows "kmeta: what: done/total" while
// a command that counts its steps works for more than a second with
// stderr on a terminal, erased at the end (done == total). It is safe for
// concurrent use.
func (c *cli) progress(what string, total int) func(done int) {
	count := c.counter(what)
	return func(done int) { count(done, total) }
}

// counter is progress for work whose total may grow as it goes (the
// compile units of an encoding): the function it returns takes both.
func (c *cli) counter(what string) func(done, total int) {
	p := c.newProgress()
	if p == nil {
		return func(int, int) {}
	}
	var mu sync.Mutex
	last, at := 0, time.Time{}
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done >= total {
			p.done()
			return
		}
		// At most ten lines a second: a terminal is slow.
		if done <= last || time.Since(at) < 100*time.Millisecond {
			return
		}
		last, at = done, time.Now()
		p.show(fmt.Sprintf("kmeta: %s: %d/%d", what, done, total))
	}
}
