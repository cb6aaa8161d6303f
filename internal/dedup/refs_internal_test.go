package dedup

import (
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// TestTypedefRingMessage checks the error for a ring of typedefs in
// libbpf 1.1's compatibility (pahole 1.24's), whose reference pass takes
// typedefs: it named typedefs among the kinds that would have broken the
// cycle. libbpf 1.8's struct pass takes them, and the ring is kept.
func TestTypedefRingMessage(t *testing.T) {
	b := builder.New()
	first := b.NextID()
	if _, err := b.AddTypedef("a", first+1); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddTypedef("b", first); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Compat{CompatLibbpf11, 0} {
		m := New(nil, Options{Compat: c})
		if err := m.AddSpec(s); err != nil {
			t.Fatal(err)
		}
		_, err = m.Dedup(builder.Options{})
		if c != CompatLibbpf11 {
			if err != nil {
				t.Errorf("%v: dedup of a typedef ring: %v", c, err)
			}
			continue
		}
		if err == nil || !strings.HasSuffix(err.Error(), "without a struct or union") {
			t.Errorf("%v: dedup of a typedef ring: %v, want a reference cycle without a struct or union", c, err)
		}
	}
}
