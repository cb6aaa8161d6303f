package rawdump_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestLazyBrokenRecord (issue 37, redteam7c): a lazy Spec whose struct
// refers to a type past the last one stops its iteration before that
// struct; Write and WriteJSON must fail with the record's error, as an
// eager open does, not print the types before it and succeed.
func TestLazyBrokenRecord(t *testing.T) {
	raw, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(*bytes.Buffer, *btf.Spec) error{
		"Write":     func(b *bytes.Buffer, s *btf.Spec) error { return rawdump.Write(b, s, rawdump.Options{}) },
		"WriteJSON": func(b *bytes.Buffer, s *btf.Spec) error { return rawdump.WriteJSON(b, s, rawdump.Options{}) },
	} {
		s, err := btf.Parse(raw, btf.Options{Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		err = write(&buf, s)
		var fe *btf.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v after %q, want the record's FormatError", name, err, buf.String())
		}
	}
}
