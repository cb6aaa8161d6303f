package btf

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// TestKindString checks that every kind the wire package knows has a name,
// that ParseKind reads it back, and that other numbers print as numbers.
func TestKindString(t *testing.T) {
	for k := range wire.MaxKind + 1 {
		s := Kind(k).String()
		if known := s != "Kind("+uitoa(uint64(k))+")"; known != (k < wire.NumKinds) {
			t.Errorf("kind %d: %q", k, s)
		}
		if k == 0 || k >= wire.NumKinds {
			continue
		}
		if got, ok := ParseKind(Kind(k).String()); !ok || got != Kind(k) {
			t.Errorf("ParseKind(%q) = %v, %v", Kind(k), got, ok)
		}
	}
}
