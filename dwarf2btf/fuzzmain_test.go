package dwarf2btf_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/internal/fuzzmain"
)

// TestMain bounds the fuzzing engine's minimization (internal/fuzzmain).
func TestMain(m *testing.M) { fuzzmain.Run(m) }
