package builder

import (
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestErrStrings checks the number that errStrings spells out.
func TestErrStrings(t *testing.T) {
	want := fmt.Sprintf("builder: string section larger than the %d bytes libbpf writes", wire.MaxStrLen)
	if got := errStrings.Error(); got != want {
		t.Errorf("errStrings = %q, want %q", got, want)
	}
}
