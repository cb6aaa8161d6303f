package kernel

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// FindOptions narrow a search across the kernel.
type FindOptions struct {
	// Kind, if not btf.KindUnknown, keeps only types of this kind.
	Kind btf.Kind
	// Flavors also matches CO-RE flavors, "name___suffix" (see
	// btf.FindOptions).
	Flavors bool
	// Module restricts the search to one place: Vmlinux for vmlinux only,
	// a module's name for that module's own types only. "" searches
	// vmlinux and every module.
	Module string
}

// Match is one type found by Find, and where it was found.
type Match struct {
	// Module is the module whose BTF holds the type, or Vmlinux.
	Module string
	// Type is the type. It belongs to the Handle's Specs and must not be
	// used after the Handle is released.
	Type btf.Type
}

// Result is the outcome of a search across the kernel.
type Result struct {
	// Matches are the types found: vmlinux's first, then each module's in
	// module name order, each place's in id order. A type is reported
	// once, by the place that holds its record: modules are searched for
	// their own types only, so a vmlinux type is not reported again for
	// every module built on it.
	Matches []Match
	// Failed lists the modules that could not be searched, because their
	// BTF could not be read or parsed. Every other module was searched.
	Failed []*ModuleError
}

// Find searches vmlinux and every module (or only the place opts.Module
// names) for types named name, on up to GOMAXPROCS goroutines. Modules not
// yet opened are opened, except when vmlinux's strings do not hold an
// exact name: then only a module's header and string section are read, and
// the module is opened (parsed and kept) only if its strings hold the name,
// since otherwise it cannot have such a type. A module ruled out that way is
// not validated, so an error in its type records is reported by the first
// search that needs them, or by Module. The first few searches of vmlinux
// and all modules scan them; then one opens every module and builds a name
// index of their types (12 bytes a named type, kept until the Specs are
// closed), from which that search and later ones of exact names are
// answered in well under a microsecond.
//
// A module that cannot be read does not stop the search: it is listed in
// Result.Failed, and err stays nil if anything was found. err is non-nil
// when:
//   - nothing was found: it wraps btf.ErrNotFound, joined with the errors of
//     the failed modules (errors.As finds a *ModuleError there);
//   - opts.Module names a module that is not listed or cannot be read: a
//     *ModuleError;
//   - the module BTF directory exists but cannot be listed;
//   - the Handle was released: ErrReleased.
func (h *Handle) Find(name string, opts FindOptions) (Result, error) {
	if !h.enter() {
		return Result{}, ErrReleased
	}
	defer h.mu.RUnlock()
	var res Result
	var err error
	switch opts.Module {
	case "":
		err = h.findAll(&res, name, opts)
	case Vmlinux:
		err = res.add(Vmlinux, h.g.vmlinux, newQuery(name, opts))
	default:
		var spec *btf.Spec
		if spec, err = h.module(opts.Module); err == nil {
			err = res.add(opts.Module, spec, newQuery(name, opts))
		}
	}
	return res.outcome(err, name, opts)
}

// outcome is what a search that filled r and ended with err returns: no
// Result with err, r with a not-found error when it matched nothing, or r.
func (r Result) outcome(err error, name string, opts FindOptions) (Result, error) {
	if err != nil {
		return Result{}, err
	}
	if len(r.Matches) == 0 {
		return r, r.notFound(name, opts)
	}
	return r, nil
}

// findAll searches vmlinux and every module: from the name index once the
// generation has one (exact names only), by scanning otherwise.
func (h *Handle) findAll(res *Result, name string, opts FindOptions) error {
	mods, err := h.g.modules()
	if err != nil {
		return pkgerr.Errorf("kernel: list module BTF: %w", err)
	}
	if !opts.Flavors && name != "" {
		if x := h.g.indexFor(mods); x != nil {
			x.find(res, h.g.vmlinux, mods, name, opts.Kind)
			return nil
		}
	}
	q := newQuery(name, opts).withPrefilter(h.g.vmlinux)
	// With the prefilter set, vmlinux's strings lack the name: it has no
	// type of that name.
	if q.needle == nil {
		if err := res.add(Vmlinux, h.g.vmlinux, q); err != nil {
			return err
		}
	}
	h.scanModules(res, mods, q, nil)
	return nil
}

// scanModules opens (if needed) and searches every module's own types, in
// parallel, and appends the results in module order. With keep non-nil,
// the modules were screened already (Cache.Find): module i is opened and
// searched only if keep[i].
func (h *Handle) scanModules(res *Result, mods []*module, q query, keep []bool) {
	type found struct {
		types []btf.Type
		err   error
	}
	per := make([]found, len(mods))
	dir := h.g.opts.BTFDir()
	dirfd := atFDCWD
	if q.needle != nil && keep == nil {
		// Modules are read by name relative to the directory, which
		// spares the kernel a path walk per module.
		if fd, err := openDir(dir); err == nil {
			dirfd = fd
			defer closeFD(fd)
		}
	}
	parallel(h.g.opts.Workers, len(mods), func(i int) {
		m := mods[i]
		var spec *btf.Spec
		var err error
		switch {
		case keep != nil && !keep[i]:
			return // ruled out by its strings
		case keep == nil && q.needle != nil && !m.opened.Load():
			spec, err = q.screen(m, dirfd, dir, h.g.vmlinux)
		default:
			spec, err = m.open(h.g.vmlinux)
		}
		if err != nil {
			per[i].err = err
			return
		}
		if spec == nil {
			return // ruled out by its strings
		}
		per[i].types, err = q.appendTo(nil, spec)
		if err != nil {
			per[i].err = &ModuleError{Module: m.name, Path: m.path(), Err: err}
		}
	})
	for i, f := range per {
		if f.err != nil {
			res.Failed = append(res.Failed, f.err.(*ModuleError))
		}
		for _, t := range f.types {
			res.Matches = append(res.Matches, Match{Module: mods[i].name, Type: t})
		}
	}
}

// query is a lookup by name in the own types of a Spec: a split Spec's
// types are searched without its base's (btf.ScopeOwn), so that a vmlinux
// type is not found again in every module.
//
// For an exact name it first rules out the modules that cannot have it: a
// type's name is a string of the module's own string section or of
// vmlinux's, so when vmlinux's strings do not hold the name, a module whose
// strings do not hold it either has no type of that name. Searching for a
// type that one module has then reads the strings of each module instead of
// every type record: of the files of modules not yet open, only their first
// page and string section are read, and only the modules that pass are
// opened (screen; BenchmarkFindAcrossModules, bench's
// BenchmarkKernelModules and BenchmarkKernelFindWarm).
type query struct {
	name   string
	opts   btf.FindOptions // Scope is btf.ScopeOwn
	needle []byte          // name and its NUL; nil if no module can be ruled out
}

func newQuery(name string, kopts FindOptions) query {
	opts := btf.FindOptions{Kind: kopts.Kind, Flavors: kopts.Flavors, Scope: btf.ScopeOwn}
	return query{name: name, opts: opts}
}

// withPrefilter returns q set to rule out, in appendTo, the modules over
// vmlinux that cannot have the name.
func (q query) withPrefilter(vmlinux *btf.Spec) query {
	if q.opts.Flavors || q.name == "" {
		return q
	}
	// A name offset may point into the middle of a string, so look for
	// the name followed by a NUL, not for a whole string.
	needle := append([]byte(q.name), 0)
	if strs, _ := vmlinux.StringSection(); !containsName(strs, needle) {
		q.needle = needle
	}
	return q
}

// scratch holds the buffers that screen reads string sections into, so
// that screening every module does not touch new memory: in a virtual
// machine, faulting in fresh pages for a kernel's module strings costs
// more than reading them (bench's BenchmarkKernelModules).
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// Screening reads a module's first headLen bytes with one system call (a
// page, which is all that sysfs returns per read; for most modules the
// string section lies within it), then, if the string section lies beyond
// them, the string section alone if it is at most maxScreen bytes (far
// above any Debian module's); anything else is opened in full, with the checks
// of readFile. A page copies less in all than larger first reads, and
// BenchmarkKernelModules guards the choice (BENCH.md).
const (
	headLen   = 4 << 10
	maxScreen = 4 << 20
)

// screen looks for q.needle in the string section of module m, which is
// not open yet, reading only the file's header and string section into
// scratch memory. It opens the module only if the strings hold the needle,
// and returns a nil Spec and no error if they do not. A module whose header
// or strings cannot be read this way is opened, so that its error is the
// one open reports. q.needle must be set.
func (q query) screen(m *module, dirfd int, dir string, base *btf.Spec) (*btf.Spec, error) {
	if m.pkg != nil {
		if raw, err := m.pkg.File(m.name); err == nil {
			if strs, ok := rawStrings(raw); ok && !containsName(strs, q.needle) {
				return nil, nil
			}
		}
		return m.open(base)
	}
	name := m.name
	if dirfd == atFDCWD {
		name = filepath.Join(dir, m.name)
	}
	if !mayHold(dirfd, name, q.needle) {
		return nil, nil
	}
	return m.open(base)
}

// rawStrings returns the string section of raw BTF in memory; ok is false
// if its header cannot be read or the section lies outside it.
func rawStrings(raw []byte) (strs []byte, ok bool) {
	h, err := btf.ParseHeader(raw[:min(len(raw), headLen)])
	off, size := h.Strings()
	if err != nil || off+size > int64(len(raw)) {
		return nil, false
	}
	return raw[off : off+size], true
}

// mayHold reports whether the string section of the BTF file name in
// dirfd holds needle, or could not be read whole (so that opening the
// file reports why). It reads into scratch memory.
func mayHold(dirfd int, name string, needle []byte) bool {
	bufp := scratch.Get().(*[]byte)
	defer scratch.Put(bufp)
	strs, ok := readStrings(dirfd, name, bufp)
	return !ok || containsName(strs, needle)
}

// readStrings reads the string section of the BTF file name in dirfd into
// *buf, growing it if needed. ok is false if the file's header or strings
// could not be read whole.
func readStrings(dirfd int, name string, buf *[]byte) (strs []byte, ok bool) {
	fd, err := openRead(dirfd, name)
	if err != nil {
		return nil, false
	}
	defer closeFD(fd)
	if cap(*buf) < headLen {
		*buf = make([]byte, 0, headLen)
	}
	head := (*buf)[:headLen]
	// One read: a short one (EOF, or sysfs's page-sized reads) leaves
	// the rest to the read of the strings.
	n, err := pread(fd, head, 0)
	if err != nil {
		return nil, false
	}
	h, err := btf.ParseHeader(head[:n])
	off, size := h.Strings()
	if err != nil || size > maxScreen {
		return nil, false
	}
	if off+size <= int64(n) {
		return head[off : off+size], true
	}
	if int64(cap(*buf)) < size {
		*buf = make([]byte, 0, size)
	}
	strs = (*buf)[:size] // the head is no longer needed
	if n, err := preadFull(fd, strs, off); err != nil || n < len(strs) {
		return nil, false
	}
	return strs, true
}

// appendTo appends the matches among s's own types to dst; no match is not
// an error.
func (q query) appendTo(dst []btf.Type, s *btf.Spec) ([]btf.Type, error) {
	if q.needle != nil && s.Base() != nil {
		if strs, _ := s.StringSection(); strs != nil && !containsName(strs, q.needle) {
			return dst, nil
		}
	}
	ts, err := s.Find(q.name, q.opts)
	if errors.Is(err, btf.ErrNotFound) {
		return dst, nil
	}
	return append(dst, ts...), err
}

// add appends the matches of q among spec's own types.
func (r *Result) add(module string, spec *btf.Spec, q query) error {
	ts, err := q.appendTo(nil, spec)
	if err != nil {
		return err
	}
	for _, t := range ts {
		r.Matches = append(r.Matches, Match{Module: module, Type: t})
	}
	return nil
}

// notFound builds the error of a search that found nothing.
func (r *Result) notFound(name string, opts FindOptions) error {
	what := "type"
	if opts.Kind != btf.KindUnknown {
		what = opts.Kind.String()
	}
	where := "vmlinux and modules"
	if opts.Module != "" {
		where = opts.Module
	}
	errs := []error{pkgerr.Errorf("kernel: %s %q in %s: %w", what, name, where, btf.ErrNotFound)}
	for _, e := range r.Failed {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}
