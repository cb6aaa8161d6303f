package btf_test

import (
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestLazyFindBroken checks that a lookup in a lazy Spec that meets a
// record failing its check returns that failure, as eager parsing refuses
// the file, and not ErrNotFound for a type that is there (red team 7c).
func TestLazyFindBroken(t *testing.T) {
	raw, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := btf.Parse(raw, btf.Options{}); err == nil {
		t.Fatal("eager Parse accepts the dangling reference")
	}
	lookups := map[string]func(*btf.Spec) error{
		"Find": func(s *btf.Spec) error {
			_, err := s.Find("s", btf.FindOptions{})
			return err
		},
		"Find by kind": func(s *btf.Spec) error {
			_, err := s.Find("s", btf.FindOptions{Kind: btf.KindStruct})
			return err
		},
		"Find flavors": func(s *btf.Spec) error {
			_, err := s.Find("s", btf.FindOptions{Flavors: true})
			return err
		},
		"FindOne": func(s *btf.Spec) error {
			_, err := s.FindOne("s", btf.FindOptions{})
			return err
		},
		"Field": func(s *btf.Spec) error {
			_, err := s.Field("s.m")
			return err
		},
	}
	for name, lookup := range lookups {
		s, err := btf.Parse(raw, btf.Options{Lazy: true})
		if err != nil {
			t.Fatalf("lazy Parse: %v", err)
		}
		err = lookup(s)
		var fe *btf.FormatError
		if err == nil || errors.Is(err, btf.ErrNotFound) || !errors.As(err, &fe) {
			t.Errorf("%s on a broken record: %v, want its check's FormatError", name, err)
		}
	}
}
