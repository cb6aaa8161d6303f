package builder

import (
	"fmt"
	"testing"
)

// TestInPlaceUnique: the Bloom filter's false matches among 100,000
// distinct names do not fail the check, and one name laid out twice does.
func TestInPlaceUnique(t *testing.T) {
	strs := []byte{0}
	for i := range 100_000 {
		strs = fmt.Appendf(strs, "n%d\x00", i)
	}
	for _, c := range []struct {
		name string
		strs []byte
		want bool
	}{
		{"distinct", strs, true},
		{"a name twice", append(strs[:len(strs):len(strs)], "n77777\x00"...), false},
	} {
		p := newInPlace(c.strs)
		p.next = uint32(len(c.strs))
		if got := p.unique(); got != c.want {
			t.Errorf("%s: unique %v, want %v", c.name, got, c.want)
		}
	}
}
