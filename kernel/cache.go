package kernel

import (
	"errors"
	"runtime"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/faults"
)

// Cache shares one vmlinux Spec, and the module Specs built on it, between
// all its users, and closes them when they are flushed and nobody holds
// them any more.
//
// A Cache holds at most one current generation: the Specs opened since the
// last Flush. Acquire hands out Handles on it; Flush detaches it, and the
// detached generation is closed (its files unmapped, its memory given back)
// when its last Handle is released. A Cache is safe for concurrent use by
// multiple goroutines. The zero Cache is not usable: create one with
// NewCache.
type Cache struct {
	opts Options

	mu     sync.Mutex
	cur    *generation // nil when nothing is cached
	closed bool
}

// NewCache returns a Cache that reads the BTF described by opts. It opens
// nothing: the first Acquire does.
func NewCache(opts Options) *Cache {
	return &Cache{opts: opts}
}

// defaultCache is the explicit process-wide cache returned by Default,
// made by its first call rather than by the package's initialization (an
// init function costs every program that imports the package the 64 KB
// of code around it: cmd/kmeta/BENCH.md).
var (
	defaultCache     *Cache
	defaultCacheOnce sync.Once
)

// Default returns the process-wide Cache for the running kernel: zero
// Options but for Workers, which is GOMAXPROCS at Default's first call.
// It holds nothing until its first Acquire; Flush it to give its
// memory back. Libraries that share it share one vmlinux Spec. Closing it
// makes every later Acquire on it fail, so call only Flush on it unless the
// process is done with kernel BTF.
func Default() *Cache {
	defaultCacheOnce.Do(func() { defaultCache = NewCache(Options{Workers: runtime.GOMAXPROCS(0)}) })
	return defaultCache
}

// Options returns the options the Cache was created with.
func (c *Cache) Options() Options { return c.opts }

// Acquire returns a Handle on the current generation of Specs, opening
// vmlinux BTF if there is none (module BTF is opened later, on first use).
// The caller must call Release on the Handle when done with it and with
// every Spec and Type obtained through it. After Close, Acquire returns
// ErrClosed; when no vmlinux BTF can be read, an error wrapping
// ErrNoVmlinux. A failed open is not cached: the next Acquire tries again.
func (c *Cache) Acquire() (*Handle, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.cur == nil {
		// The module BTF directory is listed beside vmlinux's parse:
		// nearly every use of the kernel's BTF beyond vmlinux needs the
		// list, and listing Debian 6.1's 1,121 modules takes half the
		// time of parsing vmlinux. (generation.close waits for it.)
		if _, _, err := c.openGeneration(func(g *generation) { g.modules() }); err != nil {
			return nil, err
		}
	}
	c.cur.refs++
	return &Handle{c: c, g: c.cur}, nil
}

// openGeneration opens vmlinux into a new current generation, calling
// beside(g) on a second goroutine meanwhile if the options allow one, else
// first (one task beside the caller's, not a pool of jobs); beside is done when the returned channel is closed. On error
// nothing is cached, and beside is done before openGeneration returns.
// c.mu is held.
func (c *Cache) openGeneration(beside func(*generation)) (*generation, <-chan struct{}, error) {
	g := &generation{opts: c.opts}
	done := make(chan struct{})
	if c.opts.Workers < 2 {
		beside(g)
		close(done)
	} else {
		// A fault in beside (vmlinux truncated under prescreen's read of
		// its mapping) is raised on the caller's goroutine (Find, after
		// it waits), where the caller's recover can see it.
		g.besideFault = faults.New()
		go func() {
			defer close(done)
			g.besideFault.Run(func() { beside(g) })
		}()
	}
	spec, path, err := openVmlinux(c.opts)
	if err != nil {
		<-done
		g.besideFault.Raise()
		return nil, nil, err
	}
	g.vmlinux, g.vmlinuxPath = spec, path
	c.cur = g
	return g, done, nil
}

// Flush detaches the cached Specs, so that the next Acquire opens the files
// again (after a module was loaded or unloaded, or to give memory back).
// Handles acquired before keep working on the detached Specs, which are
// closed when the last of them is released; with no such Handle they are
// closed before Flush returns, and the error is that of closing them.
// Flush on an empty Cache does nothing.
func (c *Cache) Flush() error {
	c.mu.Lock()
	g := c.detach()
	c.mu.Unlock()
	if g == nil {
		return nil
	}
	return g.close()
}

// detach removes the current generation and returns it if nobody holds it,
// for the caller to close outside the lock. c.mu is held.
func (c *Cache) detach() *generation {
	g := c.cur
	if g == nil {
		return nil
	}
	c.cur = nil
	g.flushed = true
	if g.refs > 0 {
		return nil
	}
	return g
}

// Close flushes the Cache and makes every later Acquire fail with
// ErrClosed. Handles already acquired keep working until released. Close is
// idempotent.
func (c *Cache) Close() error {
	c.mu.Lock()
	c.closed = true
	g := c.detach()
	c.mu.Unlock()
	if g == nil {
		return nil
	}
	return g.close()
}

// release drops one reference to g and returns g if it is flushed and that
// was the last one, for the caller to close outside the lock.
func (c *Cache) release(g *generation) *generation {
	c.mu.Lock()
	defer c.mu.Unlock()
	g.refs--
	if g.refs < 0 {
		panic("kernel: generation released more often than acquired")
	}
	if g.refs == 0 && g.flushed {
		return g
	}
	return nil
}

// generation is one set of Specs: vmlinux, the module list, and the
// modules opened so far. refs and flushed are guarded by the Cache's mu.
// Everything else is written once (under listOnce or a module's once) and
// read without locks.
type generation struct {
	opts        Options
	vmlinux     *btf.Spec
	vmlinuxPath string
	// besideFault carries a fault of openGeneration's second goroutine.
	besideFault faults.Carrier

	refs    int
	flushed bool

	listOnce sync.Once
	mods     []*module // sorted by name
	listErr  error

	search search // the name index of vmlinux and all modules

	// prescreened says that Cache.Find screened the modules while vmlinux
	// was opened; it is set before the generation is published.
	prescreened bool
}

// modules lists the module BTF files the first time it is called.
func (g *generation) modules() ([]*module, error) {
	g.listOnce.Do(func() {
		if g.opts.Package != nil {
			g.mods = packageModules(g.opts.Package)
			return
		}
		g.mods, g.listErr = listModules(g.opts.BTFDir())
	})
	return g.mods, g.listErr
}

// close closes the module Specs, then vmlinux. It runs once, after the last
// Handle was released (so no goroutine uses the Specs, and the Cache's
// mutex orders their writes before this read).
func (g *generation) close() error {
	// Wait for a listing still running on Acquire's second goroutine (or
	// keep one from starting): mods is read below.
	g.listOnce.Do(func() {})
	var errs []error
	for _, m := range g.mods {
		if err := m.close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := g.vmlinux.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
