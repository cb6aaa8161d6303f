package kernel

import (
	"errors"
	"github.com/kmeta-dev/kmeta/btf"
	"io/fs"
	"os"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// Find acquires a Handle, as Acquire does, and searches it for types named
// name, as Handle.Find does. On success the caller must Release the
// Handle, to which the Types of the Result belong. Whenever err is not nil
// the Handle is nil (it has been released; the Result then holds no
// Matches, only the modules that could not be searched), so callers test
// err alone.
//
// When the Cache holds nothing yet, Find does not wait for vmlinux to be
// parsed and validated before it looks at the modules: for an exact name
// that vmlinux's strings lack, it screens every module's string section (see
// Handle.Find) on other goroutines while vmlinux is opened, and then opens
// and searches only the modules whose strings hold the name. The result is
// the one Acquire and Handle.Find give; only the work overlaps. With
// something cached, or for another kind of search, Find is exactly Acquire
// then Handle.Find.
func (c *Cache) Find(name string, opts FindOptions) (*Handle, Result, error) {
	c.mu.Lock()
	// Unlocked by hand on every path below, and by this defer when
	// opening vmlinux panics: a file truncated under its mapping faults,
	// and a caller that recovers (cmd/kmeta turns the fault into an
	// error) must not find the Cache locked forever by its Close.
	locked := true
	defer func() {
		if locked {
			c.mu.Unlock()
		}
	}()
	unlock := func() { locked = false; c.mu.Unlock() }
	if c.closed || c.cur != nil || opts.Module != "" || opts.Flavors || name == "" {
		unlock()
		h, err := c.Acquire()
		if err != nil {
			return nil, Result{}, err
		}
		res, err := h.Find(name, opts)
		return handleOrNil(h, err), res, err
	}
	needle := append([]byte(name), 0)
	var ps prescreen
	g, beside, err := c.openGeneration(func(g *generation) { ps = g.prescreen(needle) })
	if err != nil {
		unlock()
		return nil, Result{}, err
	}
	<-beside
	g.besideFault.Raise()
	// The screening counts only if it read the vmlinux file that was
	// opened in the end.
	g.prescreened = ps.keep != nil && ps.vmlinux == g.vmlinuxPath
	g.refs++
	unlock()
	h := &Handle{c: c, g: g}
	var res Result
	if g.prescreened {
		g.search.count.Add(1) // one search across the kernel, as findAll counts
		q := newQuery(name, opts)
		q.needle = needle
		h.scanModules(&res, g.mods, q, ps.keep)
	} else {
		// vmlinux's strings hold the name, or could not be read ahead:
		// search as Handle.Find does.
		err = h.findAll(&res, name, opts)
	}
	res, err = res.outcome(err, name, opts)
	return handleOrNil(h, err), res, err
}

// handleOrNil returns h, or releases it and returns nil if err is set.
func handleOrNil(h *Handle, err error) *Handle {
	if err != nil {
		h.Release()
		return nil
	}
	return h
}

// prescreen is what Cache.Find learns before vmlinux is open: the path of
// the vmlinux file whose strings lack the needle, and for each module of
// the generation whether it must be opened (its strings hold the needle,
// or could not be read). keep is nil when the modules were not screened.
type prescreen struct {
	vmlinux string
	keep    []bool
}

// prescreen lists g's modules and, if the first vmlinux file that
// openVmlinux will try is raw BTF whose strings lack needle, screens every
// module's strings for it.
func (g *generation) prescreen(needle []byte) prescreen {
	if g.opts.Package != nil {
		return prescreen{} // in memory: screened as it is searched
	}
	mods, err := g.modules()
	if err != nil || len(mods) == 0 {
		return prescreen{}
	}
	path, ok := g.opts.firstVmlinux()
	if !ok || vmlinuxHas(path, needle) {
		return prescreen{}
	}
	dir := g.opts.BTFDir()
	dirfd, err := openDir(dir)
	if err != nil {
		return prescreen{}
	}
	defer closeFD(dirfd)
	keep := make([]bool, len(mods))
	parallel(g.opts.Workers, len(mods), func(i int) { keep[i] = mayHold(dirfd, mods[i].name, needle) })
	return prescreen{vmlinux: path, keep: keep}
}

// firstVmlinux returns the first of the vmlinux paths that is a regular
// file: the one openVmlinux opens unless it holds no usable BTF.
func (o Options) firstVmlinux() (string, bool) {
	paths, err := o.VmlinuxPaths()
	if err != nil {
		return "", false
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().IsRegular() {
			return p, true
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
	}
	return "", false
}

// vmlinuxHas reports whether the string section of the raw BTF file at path
// holds needle. It answers true, which rules nothing out, when the file is
// not raw BTF or cannot be read.
func vmlinuxHas(path string, needle []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return true
	}
	mem, err := mmap.File(f, fi.Size())
	if err != nil {
		return true
	}
	defer mem.Free()
	data := mem.Bytes()
	h, err := btf.ParseHeader(data)
	off, n := h.Strings()
	if err != nil || off+n > int64(len(data)) {
		return true
	}
	return containsName(data[off:off+n], needle)
}
