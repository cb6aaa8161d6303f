package distill

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestSplitSizeBounds: splitSize bounds the new split BTF, so that its
// buffer is allocated once, on every Debian 6.1 module and on structs
// split on hostile bases, whose names the split takes from the base's
// strings (a wide struct's members) or whose needed base types move into
// the split (chains).
func TestSplitSizeBounds(t *testing.T) {
	vmlinux := testfixtures.DebianSpec(t)
	for name, raw := range testfixtures.Modules(t) {
		checkSplitSize(t, name, testfixtures.Spec(t, raw, vmlinux))
	}
	for _, k := range []hostile.Shape{hostile.PointerChain, hostile.TypedefChain, hostile.Wide, hostile.NestedRecords, hostile.SelfEmbed} {
		raw, err := hostile.Build(k, 1000)
		if err != nil {
			t.Fatal(err)
		}
		split, err := hostile.SplitOn(raw, 1000)
		if err != nil {
			t.Fatal(err)
		}
		base := testfixtures.Spec(t, raw, nil)
		checkSplitSize(t, k.String(), testfixtures.Spec(t, split, base))
	}
}

// checkSplitSize distills s and checks that the new split BTF is no
// larger than splitSize said, nor its buffer reallocated.
func checkSplitSize(t *testing.T, name string, s *btf.Spec) {
	t.Helper()
	d := &distiller{src: s, start: uint32(s.FirstID())}
	if err := d.mark(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := d.copyNeeded(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := d.writeBase(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	types, strs, err := d.splitSize()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := d.writeSplit(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	size := types + strs
	buf := d.splitTypes
	out := marshal(d.splitTypes, d.splitStrs.data(), nil)
	if len(out) > size || &out[0] != &buf[0] {
		t.Errorf("%s: %d bytes, bounded at %d; reallocated: %v", name, len(out), size, &out[0] != &buf[0])
	}
}
