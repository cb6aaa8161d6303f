package kernel

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/btf"
)

// indexAfter is the number of searches across all modules a generation
// answers by scanning before it builds a nameIndex. Building the index
// costs a few scans of vmlinux and every module (BenchmarkBuildIndex), and
// an indexed search far less than one (bench's BenchmarkKernelFindWarm;
// figures in BENCH.md): a process that searches a few times
// never pays for the index, one that searches many times, as CO-RE
// relocation against module types does, pays for it once.
const indexAfter = 4

// nameIndex maps the names of the types of vmlinux and every module that
// could be opened to their places: one 12-byte entry per named type, a
// small fraction of the BTF's size, sorted by the name's hash. It is
// immutable once built.
type nameIndex struct {
	seed    maphash.Seed
	entries []indexEntry
	failed  []*ModuleError // the modules not indexed, in module order
}

// indexEntry is one named type: place 0 is vmlinux, place i+1 module i.
type indexEntry struct {
	hash  uint32
	place uint32
	id    btf.TypeID
}

// search is the state of a generation's name index: how many searches
// were made, and the index once built.
type search struct {
	count atomic.Int32
	once  sync.Once
	index *nameIndex
}

// indexFor returns the generation's name index, building it (after
// opening every module) on the first call that comes after indexAfter
// searches; before that it returns nil and the caller scans.
func (g *generation) indexFor(mods []*module) *nameIndex {
	if g.search.count.Add(1) <= indexAfter {
		return nil
	}
	g.search.once.Do(func() {
		parallel(g.opts.Workers, len(mods), func(i int) { mods[i].open(g.vmlinux) })
		g.search.index = buildIndex(g.opts.Workers, g.vmlinux, mods)
	})
	return g.search.index
}

// buildIndex indexes the named types of vmlinux and of the modules opened
// without error.
func buildIndex(workers int, vmlinux *btf.Spec, mods []*module) *nameIndex {
	x := &nameIndex{seed: maphash.MakeSeed()}
	// Place 0 is vmlinux, place i+1 module i; each place's entries are
	// made on its own, in parallel, then put together in place order.
	per := make([][]indexEntry, len(mods)+1)
	parallel(workers, len(per), func(i int) {
		s := vmlinux
		if i > 0 {
			if mods[i-1].err != nil {
				return
			}
			s = mods[i-1].spec
		}
		entries := make([]indexEntry, 0, s.NumTypes())
		for id, t := range s.Types(btf.ScopeOwn) {
			if name := t.NameBytes(); len(name) > 0 {
				entries = append(entries, indexEntry{hash: x.hash(name), place: uint32(i), id: id})
			}
		}
		per[i] = entries
	})
	n := 0
	for _, e := range per {
		n += len(e)
	}
	x.entries = make([]indexEntry, 0, n)
	for _, e := range per {
		x.entries = append(x.entries, e...)
	}
	for _, m := range mods {
		if m.err != nil {
			x.failed = append(x.failed, m.err.(*ModuleError))
		}
	}
	radixSort(x.entries, make([]indexEntry, n))
	return x
}

// radixSort sorts a by hash with a stable least-significant-digit radix
// sort, using tmp (of the same length) as scratch space. Entries are added
// in place and id order, so equal hashes stay in that order. It beats a
// comparison sort of a whole kernel's entries several times over.
func radixSort(a, tmp []indexEntry) {
	for shift := 0; shift < 32; shift += 8 {
		var count [257]int
		for _, e := range a {
			count[(e.hash>>shift)&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, e := range a {
			d := (e.hash >> shift) & 0xff
			tmp[count[d]] = e
			count[d]++
		}
		a, tmp = tmp, a
	}
	// Four passes: the sorted entries are back in the caller's a.
}

func (x *nameIndex) hash(name []byte) uint32 {
	return uint32(maphash.Bytes(x.seed, name))
}

// find appends to res the types named name (of kind kind, unless
// btf.KindUnknown) in vmlinux and every indexed module, in place order and
// id order, and the modules that could not be indexed.
func (x *nameIndex) find(res *Result, vmlinux *btf.Spec, mods []*module, name string, kind btf.Kind) {
	nb := []byte(name)
	h := x.hash(nb)
	i, _ := slices.BinarySearchFunc(x.entries, h, func(e indexEntry, h uint32) int {
		return cmp.Compare(e.hash, h)
	})
	for ; i < len(x.entries) && x.entries[i].hash == h; i++ {
		e := x.entries[i]
		place, spec := Vmlinux, vmlinux
		if e.place > 0 {
			place, spec = mods[e.place-1].name, mods[e.place-1].spec
		}
		t, err := spec.TypeByID(e.id)
		if err != nil || !bytes.Equal(t.NameBytes(), nb) || (kind != btf.KindUnknown && t.Kind() != kind) {
			continue
		}
		res.Matches = append(res.Matches, Match{Module: place, Type: t})
	}
	res.Failed = append(res.Failed, x.failed...)
}
