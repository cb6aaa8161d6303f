package dedup

import (
	"bytes"
	"context"
	"testing"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestPrepareBaseNamesKept prepares split BTF that repeats its base
// (redteam10's base-copies), whose names are nearly all base strings and
// whose own string section is nearly empty: a base string's name keeps
// its offset (isKey), so only the own strings are numbered, and their
// numbers stay in the mappings reset reserved, not on the heap (BENCH.md,
// "A split input that repeats its base"). Appended, every name is the
// base's offset again.
func TestPrepareBaseNamesKept(t *testing.T) {
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
	if own := bytes.Count(sec, []byte{0}); len(p.keys) > own {
		t.Errorf("%d strings numbered, %d in the own section", len(p.keys), own)
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
	for id, typ := range split.Types(btf.ScopeOwn) {
		got, want := m.d.ownRec(uint32(id) - m.d.first)[wName], wire.Record(typ.Record()).NameOff()
		if got != want {
			t.Fatalf("type [%d]: name %#x, want %#x", id, got, want)
		}
	}
}
