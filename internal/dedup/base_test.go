package dedup

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestBaseRecordsInPlace checks that a Base reads a vmlinux's type section
// in place, and that deduplicating a module on it gives the same bytes as
// on a Base that copied the records.
func TestBaseRecordsInPlace(t *testing.T) {
	s, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mod := testfixtures.Spec(t, testfixtures.Modules(t)["kvm"], s)
	sec := s.TypeSection()
	var outs [][]byte
	for _, inPlace := range []bool{true, false} {
		b, err := newBase(s, inPlace)
		if err != nil {
			t.Fatal(err)
		}
		shared := unsafe.Pointer(&b.recs.w[0]) == unsafe.Pointer(&sec[0])
		if shared != inPlace {
			t.Errorf("records read in place: %v, want %v", shared, inPlace)
		}
		out, err := Specs(b, mod)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("kvm deduplicated on a Base read in place differs from one on a copied Base")
	}
}
