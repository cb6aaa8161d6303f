package btf_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestAlignOfZeroSizeEnum: a struct whose member is an ENUM of size 0,
// which Parse accepts, must make AlignOf return an error rather than
// divide by zero (btf__align_of's 0 is for libbpf's callers).
func TestAlignOfZeroSizeEnum(t *testing.T) {
	raw, err := hostile.ZeroEnumMember()
	if err != nil {
		t.Fatal(err)
	}
	for _, lazy := range []bool{false, true} {
		s, err := btf.Parse(raw, btf.Options{Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		if a, err := s.AlignOf(2); err == nil {
			t.Errorf("lazy %v: AlignOf(struct s) = %d, want an error", lazy, a)
		}
		if a, err := s.AlignOf(1); err == nil {
			t.Errorf("lazy %v: AlignOf(enum e) = %d, want an error", lazy, a)
		}
	}
}

// TestLazyCheck: Check finds in a lazy Spec what Parse refuses, and keeps
// it for Err; an eager Spec passes at once.
func TestLazyCheck(t *testing.T) {
	raw, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	_, want := btf.Parse(raw, btf.Options{})
	s, err := btf.Parse(raw, btf.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Check(); err == nil || err.Error() != want.Error() {
			t.Errorf("Check: %v, want %v", err, want)
		}
	}
	if err := s.Err(); err == nil || err.Error() != want.Error() {
		t.Errorf("Err: %v, want %v", err, want)
	}
	good, err := hostile.ZeroEnumMember()
	if err != nil {
		t.Fatal(err)
	}
	for _, lazy := range []bool{false, true} {
		if err := mustParseOpts(t, good, btf.Options{Lazy: lazy}).Check(); err != nil {
			t.Errorf("lazy %v: Check: %v", lazy, err)
		}
	}
}

func mustParseOpts(tb testing.TB, raw []byte, opts btf.Options) *btf.Spec {
	tb.Helper()
	s, err := btf.Parse(raw, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
