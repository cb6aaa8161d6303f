package core

import (
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
)

// Target is the BTF that relocations are resolved against: a kernel's
// vmlinux BTF, and optionally module BTFs on it. As in libbpf, candidates
// for a local type are searched in the main BTF (all of its chain, from id
// 1), and only when it has none, in each module's own types, in the order
// given.
//
// A Target caches the candidates it found, by essential name and kind, so
// that resolving many objects against it scans its types once per batch
// of new names. It is safe for concurrent use. Its Specs must stay open
// while it is used.
type Target struct {
	main    *btf.Spec
	modules []*btf.Spec
	// load, if not nil, gives the modules the first time they are needed
	// (NewKernelTarget).
	load func() []*btf.Spec

	mu    sync.Mutex
	cands map[string]*candEntry
}

// candEntry holds the candidates of one essential name, by kind class.
type candEntry struct {
	done  uint32 // kind classes searched
	lists [numClasses]candList
}

// numClasses is the number of kind classes: every kind, with ENUM64
// folded into ENUM.
const numClasses = 32

func kindClass(k btf.Kind) uint8 {
	if k == btf.KindEnum64 {
		return uint8(btf.KindEnum)
	}
	return uint8(k) % numClasses
}

// NewTarget returns a Target on main (a vmlinux BTF, or any standalone or
// split BTF) and modules, split BTFs whose base is main.
func NewTarget(main *btf.Spec, modules ...*btf.Spec) *Target {
	return &Target{main: main, modules: modules, cands: map[string]*candEntry{}}
}

// NewKernelTarget returns a Target on main whose modules are given by
// modules, called at most once, and only when a name has no candidate in
// main: libbpf too loads module BTFs only then. It suits a running
// kernel, whose module BTFs are many and mostly not needed.
func NewKernelTarget(main *btf.Spec, modules func() []*btf.Spec) *Target {
	return &Target{main: main, load: modules, cands: map[string]*candEntry{}}
}

// Main returns the main BTF of the target.
func (t *Target) Main() *btf.Spec { return t.main }

// want is a candidate search to do: an essential name and a kind class.
type want struct {
	name  string
	class uint8
}

// prepare makes sure the candidates of every w are cached, scanning the
// target once for all that are not.
func (t *Target) prepare(ws []want) {
	t.mu.Lock()
	defer t.mu.Unlock()
	missing := map[string]uint32{}
	for _, w := range ws {
		e := t.cands[w.name]
		if e == nil {
			e = &candEntry{}
			t.cands[w.name] = e
		}
		if e.done&(1<<w.class) == 0 {
			missing[w.name] |= 1 << w.class
		}
	}
	if len(missing) == 0 {
		return
	}
	t.scan(t.main, btf.ScopeAll, missing)
	// modules are searched, all of them, only for what the main BTF lacks
	left := map[string]uint32{}
	for name, mask := range missing {
		e := t.cands[name]
		for c := range numClasses {
			if mask&(1<<c) != 0 && e.lists[c].n == 0 {
				left[name] |= 1 << c
			}
		}
	}
	if len(left) > 0 && t.load != nil {
		t.modules, t.load = t.load(), nil
	}
	for _, m := range t.modules {
		if len(left) > 0 {
			t.scan(m, btf.ScopeOwn, left)
		}
	}
	for name, mask := range missing {
		t.cands[name].done |= mask
	}
}

// scan adds to the cache every type of s (in scope) whose essential name
// and kind class are in missing: libbpf's bpf_core_add_cands, for all
// the names at once.
func (t *Target) scan(s *btf.Spec, scope btf.Scope, missing map[string]uint32) {
	q := query(missing)
	for typ := range s.FindFlavors(q, btf.FindOptions{Scope: scope}) {
		name := essential(typ.NameBytes())
		c := kindClass(typ.Kind())
		if missing[string(name)]&(1<<c) == 0 {
			continue
		}
		t.cands[string(name)].lists[c].add(s, typ.ID())
	}
}

// query returns the FindFlavors search for the essential names and kind
// classes of missing.
func query(missing map[string]uint32) btf.FlavorQuery {
	var classes uint32
	for _, mask := range missing {
		classes |= mask
	}
	var q btf.FlavorQuery
	for k := btf.KindUnknown; k <= btf.KindEnum64; k++ {
		if classes&(1<<kindClass(k)) != 0 {
			q.Kinds = append(q.Kinds, k)
		}
	}
	for name := range missing {
		q.Names = append(q.Names, name)
	}
	return q
}

// TargetQuery returns the candidate search that resolving objs against a
// Target makes in its BTF: open the target with it as
// btf.Options.Flavors, Lazy, and the search is made in the walk that
// opening does anyway (kmeta btf min --obj).
func TargetQuery(objs ...Object) btf.FlavorQuery {
	missing := map[string]uint32{}
	for i := range objs {
		for _, w := range wants(&objs[i]) {
			missing[w.name] |= 1 << w.class
		}
	}
	return query(missing)
}

// err returns the error of a record of the target's lazily opened BTF
// (btf.Options.Lazy) that failed its check when it was read: results
// computed since may have taken it for void.
func (t *Target) err() error {
	if err := t.main.Err(); err != nil {
		return err
	}
	for _, m := range t.modules {
		if err := m.Err(); err != nil {
			return err
		}
	}
	return nil
}

// check checks the records of the target's lazily opened BTFs whole, as
// an eager open does (btf.Spec.Check): the main one and the modules
// loaded so far.
func (t *Target) check() error {
	t.mu.Lock()
	modules := t.modules
	t.mu.Unlock()
	if err := t.main.Check(); err != nil {
		return err
	}
	for _, m := range modules {
		if err := m.Check(); err != nil {
			return err
		}
	}
	return nil
}

// candidates returns the cached candidates of w, which prepare must have
// searched: a list that nothing changes any more, for reading only.
func (t *Target) candidates(w want) *candList {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.cands[w.name]; e != nil {
		return &e.lists[w.class]
	}
	return nil
}
