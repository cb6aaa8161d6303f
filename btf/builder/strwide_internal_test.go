package builder

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestStringLimit checks the refusal at the own strings' limit, lowered
// from libbpf's 2^31-1 to just past the kernel's 2^24 so that the test is
// cheap: the string that would pass it is refused, nothing of it stays,
// and the strings before it are kept.
func TestStringLimit(t *testing.T) {
	defer func(m int) { maxOwnStrings = m }(maxOwnStrings)
	maxOwnStrings = wire.MaxNameOffset + 1 + 1000
	b := New()
	var err error
	added := 0
	for i := 0; err == nil; i++ {
		_, err = b.AddInt(fmt.Sprintf("%0250d", i), 4, btf.IntInfo{Bits: 32})
		if err == nil {
			added++
		}
	}
	if !errors.Is(err, errStrings) {
		t.Fatalf("AddInt past the limit: %v, want %v", err, errStrings)
	}
	data, _ := b.Strings()
	if want := 1 + 251*added; len(data) != want || len(data) > maxOwnStrings || len(data)+251 <= maxOwnStrings {
		t.Fatalf("%d bytes of strings after %d names, want %d, at most %d", len(data), added, want, maxOwnStrings)
	}
	raw, err := b.Marshal(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	last, err := s.TypeByID(btf.TypeID(added))
	if err != nil || last.Name() != fmt.Sprintf("%0250d", added-1) {
		t.Fatalf("last type %v, %v", last, err)
	}
}
