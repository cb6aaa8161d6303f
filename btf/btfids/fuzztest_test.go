package btfids_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/internal/fuzztest"
)

// TestMain bounds the fuzzing engine's minimization (internal/fuzztest).
func TestMain(m *testing.M) { fuzztest.Run(m) }
