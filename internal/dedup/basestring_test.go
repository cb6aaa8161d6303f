package dedup_test

import (
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestBaseString: a name in a split input's own strings that the base
// holds takes the base's lowest offset, as libbpf's string deduplication
// gives it (btf__find_str). pahole never writes such a name, so the
// modules of the goldens do not test it.
func TestBaseString(t *testing.T) {
	vm, base := debian(t)
	b, err := builder.NewSplit(vm)
	if err != nil {
		t.Fatal(err)
	}
	const own, want = "zzzzzzzzzzz", "task_struct" // of one length
	if _, err := b.AddInt(own, 4, btf.IntInfo{Bits: 32}); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	copy(raw[bytes.Index(raw, []byte(own)):], want)
	mod, err := btf.Parse(raw, btf.Options{Base: vm})
	if err != nil {
		t.Fatal(err)
	}
	out, err := dedup.Specs(base, mod)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(out, btf.Options{Base: vm})
	if err != nil {
		t.Fatal(err)
	}
	strs, _ := vm.StringSection()
	at := bytes.Index(strs, []byte("\x00"+want+"\x00"))
	if at < 0 {
		t.Fatalf("no %q in the base", want)
	}
	ty, err := s.TypeByID(s.FirstID())
	if err != nil {
		t.Fatal(err)
	}
	if off := ty.NameOffset(); off != uint32(at+1) || ty.Name() != want {
		t.Errorf("name %q at %d, want %q at the base's %d", ty.Name(), off, want, at+1)
	}
}
