package bpfsys

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// requireBPF skips the test unless we are root and the kernel loads BTF.
func requireBPF(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: BPF_BTF_LOAD needs CAP_BPF")
	}
	if err := Available(); err != nil {
		t.Skipf("BPF_BTF_LOAD does not work here: %v", err)
	}
}

func TestLoadTiny(t *testing.T) {
	requireBPF(t)
	f, err := LoadBTF(tiny)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLoadErrorLog checks that a rejected blob comes back with the
// kernel's verifier log: here an INT of 40 bits in 4 bytes.
func TestLoadErrorLog(t *testing.T) {
	requireBPF(t)
	bad := append([]byte(nil), tiny...)
	bad[24+12] = 40 // nr_bits
	_, err := LoadBTF(bad)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *LoadError", err)
	}
	if !strings.Contains(le.Log, "nr_bits") && !strings.Contains(le.Log, "Invalid") {
		t.Errorf("log does not explain the error:\n%s", le.Log)
	}
	t.Logf("kernel says: %v", err)
}

func TestLoadEmpty(t *testing.T) {
	if _, err := LoadBTF(nil); err == nil {
		t.Fatal("empty data loaded")
	}
}
