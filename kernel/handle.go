package kernel

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Handle is one user's reference to a Cache's Specs. The Specs it gives out
// stay open until Release, even if the Cache is flushed or closed meanwhile.
//
// A Handle is safe for concurrent use by multiple goroutines. Release waits
// for the Handle's calls in progress; after it, every method returns
// ErrReleased (or nil for Vmlinux).
type Handle struct {
	c *Cache
	g *generation

	mu       sync.RWMutex // held for reading by every call, for writing by Release
	released bool
}

// Release gives the Handle back. The Specs and Types obtained through it
// must not be used afterwards. If the Cache was flushed and this was the
// last Handle on its Specs, they are closed before Release returns, and the
// error is that of closing them. Release is idempotent: later calls do
// nothing and return nil, and so does Release on a nil Handle.
func (h *Handle) Release() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	if h.released {
		h.mu.Unlock()
		return nil
	}
	h.released = true
	h.mu.Unlock()
	if g := h.c.release(h.g); g != nil {
		return g.close()
	}
	return nil
}

// enter starts a call: it takes the read lock and reports whether the
// Handle is still live. The caller must call h.mu.RUnlock if ok.
func (h *Handle) enter() bool {
	h.mu.RLock()
	if h.released {
		h.mu.RUnlock()
		return false
	}
	return true
}

// Vmlinux returns the shared vmlinux Spec, which stays open until Release.
// It returns nil after Release.
func (h *Handle) Vmlinux() *btf.Spec {
	if !h.enter() {
		return nil
	}
	defer h.mu.RUnlock()
	return h.g.vmlinux
}

// VmlinuxPath returns the file vmlinux BTF was read from.
func (h *Handle) VmlinuxPath() string { return h.g.vmlinuxPath }

// Modules returns the names of the modules that have BTF, sorted. The
// directory is listed once per generation (until the Cache is flushed); a
// missing directory gives no modules and no error.
func (h *Handle) Modules() ([]string, error) {
	if !h.enter() {
		return nil, ErrReleased
	}
	defer h.mu.RUnlock()
	mods, err := h.g.modules()
	if err != nil {
		return nil, pkgerr.Errorf("kernel: list module BTF: %w", err)
	}
	names := make([]string, len(mods))
	for i, m := range mods {
		names[i] = m.name
	}
	return names, nil
}

// Module returns the split BTF Spec of the named module, built on the
// shared vmlinux Spec and opened on first use. It stays open until Release.
// Any failure is a *ModuleError: for a module that was not listed, its Err
// wraps fs.ErrNotExist; for corrupt BTF, a *btf.FormatError. A failure is
// remembered until the Cache is flushed. Module(Vmlinux) returns vmlinux.
func (h *Handle) Module(name string) (*btf.Spec, error) {
	if !h.enter() {
		return nil, ErrReleased
	}
	defer h.mu.RUnlock()
	return h.module(name)
}

// module is Module without the read lock.
func (h *Handle) module(name string) (*btf.Spec, error) {
	if name == Vmlinux {
		return h.g.vmlinux, nil
	}
	m, err := h.lookup(name)
	if err != nil {
		return nil, err
	}
	return m.open(h.g.vmlinux)
}

// lookup returns the listed module named name, or a *ModuleError.
func (h *Handle) lookup(name string) (*module, error) {
	path := filepath.Join(h.g.opts.BTFDir(), name)
	if !validName(name) {
		return nil, &ModuleError{Module: name, Path: path, Err: pkgerr.Errorf("kernel: invalid module name: %w", fs.ErrInvalid)}
	}
	mods, err := h.g.modules()
	if err != nil {
		return nil, &ModuleError{Module: name, Path: path, Err: err}
	}
	i, ok := slicesSearch(mods, name)
	if !ok {
		return nil, &ModuleError{Module: name, Path: path, Err: pkgerr.Errorf("kernel: no BTF for this module: %w", fs.ErrNotExist)}
	}
	return mods[i], nil
}

// slicesSearch finds the module named name in mods, sorted by name.
func slicesSearch(mods []*module, name string) (int, bool) {
	return slices.BinarySearchFunc(mods, name, func(m *module, name string) int {
		return strings.Compare(m.name, name)
	})
}
