//go:build !linux

package bpfobj_test

import (
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfobj"
)

// TestUnsupported: off Linux every call says so.
func TestUnsupported(t *testing.T) {
	for _, err := range bpfobj.BTFs() {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("BTFs: %v", err)
		}
	}
	if _, err := bpfobj.OpenBTF(1, bpfobj.Options{}); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("OpenBTF: %v", err)
	}
	if _, err := bpfobj.BTFUsers(); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("BTFUsers: %v", err)
	}
}
