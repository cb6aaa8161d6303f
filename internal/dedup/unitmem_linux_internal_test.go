package dedup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"golang.org/x/sys/unix"
)

// TestUnitStringsPaidAsWritten writes a unit of long distinct names under
// a GrowNames bound four times their size, as a DWARF encoder gives when
// each name is used twice (the eleventh red team's dwarf-suffix-names):
// the strings' bytes must cost the pages written, not the bound, and
// Release must give them back once the unit is appended, after which the
// Unit is written again and appended as before.
func TestUnitStringsPaidAsWritten(t *testing.T) {
	const names, size = 600, 4 << 10 // 2.4 MB of strings, past unitKeep
	m := New(nil, Options{})
	u := m.NewUnit()
	u.Reset(m.NextID())
	u.GrowNames(2*names, 4*names*size)
	for i := range names {
		name := fmt.Sprintf("%0*d", size, i)
		if _, err := u.AddInt(name, 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
			t.Fatal(err)
		}
	}
	if u.mem.strs == nil {
		t.Fatal("a unit's 2.4 MB of strings are on the heap, not in a mapping")
	}
	all := u.strs[:cap(u.strs)]
	in := 0
	for _, r := range resident(t, all) {
		if r {
			in++
		}
	}
	if got, most := in*unix.Getpagesize(), len(u.strs)+mmap.MinSlice; got > most {
		t.Errorf("%d bytes of strings hold %d resident bytes of their %d reserved: want at most %d", len(u.strs), got, len(all), most)
	}
	if err := m.AddUnit(u, 0); err != nil {
		t.Fatal(err)
	}
	live := mmap.Live()
	u.Release()
	if u.mem.strs != nil || mmap.Live() != live-1 {
		t.Fatalf("Release kept the strings' mapping (live %d, was %d)", mmap.Live(), live)
	}
	// Written again after Release and Reset: the second unit's names
	// repeat the first's, so the output holds each once.
	u.Reset(m.NextID())
	for i := range names {
		if _, err := u.AddInt(fmt.Sprintf("%0*d", size, i), 8, btf.IntInfo{Bits: 64}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.AddUnit(u, 0); err != nil {
		t.Fatal(err)
	}
	raw, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := spec.NumTypes(); n != 2*names {
		t.Fatalf("%d types, want %d", n, 2*names)
	}
	if strs, _ := spec.StringSection(); len(strs) != 1+names*(size+1) {
		t.Fatalf("string section of %d bytes, want %d", len(strs), 1+names*(size+1))
	}
	typ, err := spec.TypeByID(1)
	if err != nil {
		t.Fatal(err)
	}
	if name := typ.Name(); !strings.HasPrefix(name, "0000") {
		t.Fatalf("type 1 is named %.10q", name)
	}
}

// resident returns which pages of b are in memory.
func resident(t *testing.T, b []byte) []bool {
	t.Helper()
	in, err := mmap.Resident(b)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
