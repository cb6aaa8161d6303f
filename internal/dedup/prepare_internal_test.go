package dedup

import (
	"context"
	"testing"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestPrepareBaseNamesMapped prepares split BTF that repeats its base
// (redteam10's base-copies), whose names are nearly all base strings and
// whose own string section is nearly empty: the numbers of its strings
// stay in the mappings reset reserved, not on the heap, where append
// would double them (BENCH.md, "A split input that repeats its base").
func TestPrepareBaseNamesMapped(t *testing.T) {
	vm, base := debianBase(t)
	raw, err := hostile.BuildBaseCopies(testfixtures.Read(t, testfixtures.DebianVmlinux), 2000)
	if err != nil {
		t.Fatal(err)
	}
	split, err := btf.Parse(raw, btf.Options{Base: vm})
	if err != nil {
		t.Fatal(err)
	}
	sec, _ := split.StringSection()
	m := New(base, Options{})
	p, err := m.Prepare(context.Background(), split)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.keys) <= len(sec) {
		t.Fatalf("%d strings numbered, own section %d bytes: not the shape this test needs", len(p.keys), len(sec))
	}
	inMapping := func(name string, s unsafe.Pointer, r []byte) {
		if len(r) == 0 || s != unsafe.Pointer(unsafe.SliceData(r)) {
			t.Errorf("%s left its mapping for the heap (%d strings)", name, len(p.keys))
		}
	}
	inMapping("keys", unsafe.Pointer(unsafe.SliceData(p.keys)), p.mem.keys.Bytes())
	inMapping("hashes", unsafe.Pointer(unsafe.SliceData(p.hashes)), p.mem.hashes.Bytes())
	inMapping("strEnds", unsafe.Pointer(unsafe.SliceData(p.strEnds)), p.mem.strEnds.Bytes())
	if err := m.AddPrepared(p); err != nil {
		t.Fatal(err)
	}
}
