package pkgerr_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

var errSentinel = errors.New("btf: not found")

type formatError struct{ msg string }

func (e *formatError) Error() string { return "btf: " + e.msg }

func TestErrorf(t *testing.T) {
	deep := pkgerr.Errorf("btf: member %q: %w", "pid", errSentinel)
	fe := &formatError{"bad magic"}
	for _, tc := range []struct {
		err  error
		want string
		is   error
	}{
		{pkgerr.Errorf("btf: type %q: %w", "x", errSentinel), `btf: type "x": not found`, errSentinel},
		{pkgerr.Errorf("btf: field %q: %w", "a.pid", deep), `btf: field "a.pid": member "pid": not found`, errSentinel},
		{pkgerr.Errorf("btf: %s: %w", "/vmlinux", fe), "btf: /vmlinux: bad magic", nil},
		{pkgerr.Errorf("kimage: %s: %w", "/x", errSentinel), "kimage: /x: btf: not found", errSentinel},
		{pkgerr.Errorf("btf: %w", fs.ErrNotExist), "btf: file does not exist", fs.ErrNotExist},
		{pkgerr.Errorf("no prefix %w", errSentinel), "no prefix btf: not found", errSentinel},
		{pkgerr.Errorf("btf: %v and %w", errSentinel, error(nil)), "btf: not found and %!w(<nil>)", nil},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
		if tc.is != nil && !errors.Is(tc.err, tc.is) {
			t.Errorf("%q does not wrap %v", tc.err, tc.is)
		}
	}
	var target *formatError
	if err := pkgerr.Errorf("btf: %s: %w", "/vmlinux", fe); !errors.As(err, &target) || target != fe {
		t.Errorf("errors.As does not reach the FormatError of %v", err)
	}
}

func ExampleErrorf() {
	errNotFound := errors.New("btf: not found")
	err := pkgerr.Errorf("btf: type %q: %w", "task_struct", errNotFound)
	fmt.Println(err, errors.Is(err, errNotFound))
	// Output: btf: type "task_struct": not found true
}
