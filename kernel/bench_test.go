package kernel

import (
	"testing"
)

// BenchmarkFindAcrossModules opens vmlinux from a fake sysfs of Debian 6.1
// and finds a type only the xfs module has among all 1,121 modules, which
// it screens by their string sections.
func BenchmarkFindAcrossModules(b *testing.B) {
	dir := fakeSysfs(b, nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		c := NewCache(Options{Workers: 4, Sysfs: dir})
		h, err := c.Acquire()
		if err != nil {
			b.Fatal(err)
		}
		res, err := h.Find("xfs_mount", FindOptions{})
		if err != nil || len(res.Matches) != 1 || len(res.Failed) != 0 {
			b.Fatal(res, err)
		}
		h.Release()
		c.Close()
	}
}

// BenchmarkBuildIndex builds the name index of vmlinux and all 1,121
// Debian 6.1 modules, as the second search across all modules does.
func BenchmarkBuildIndex(b *testing.B) {
	c := NewCache(Options{Workers: 4, Sysfs: fakeSysfs(b, nil, nil)})
	defer c.Close()
	h, err := c.Acquire()
	if err != nil {
		b.Fatal(err)
	}
	defer h.Release()
	mods, err := h.g.modules()
	if err != nil {
		b.Fatal(err)
	}
	parallel(2, len(mods), func(i int) { mods[i].open(h.g.vmlinux) })
	b.ReportAllocs()
	var x *nameIndex
	for b.Loop() {
		x = buildIndex(h.g.opts.Workers, h.g.vmlinux, mods)
	}
	b.ReportMetric(float64(len(x.entries)), "entries")
}
