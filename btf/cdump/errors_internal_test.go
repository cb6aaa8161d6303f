package cdump

import (
	"fmt"
	"testing"
)

// TestErrTooDeep checks the number that ErrTooDeep spells out.
func TestErrTooDeep(t *testing.T) {
	want := fmt.Sprintf("cdump: types nest deeper than %d levels", maxDepth)
	if got := ErrTooDeep.Error(); got != want {
		t.Errorf("ErrTooDeep = %q, want %q", got, want)
	}
}
