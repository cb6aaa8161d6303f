// Package pkgerr formats the errors that kmeta's packages return so that
// each starts with its package's prefix ("btf: ") exactly once, also when
// it wraps an error of the same package that carries the prefix itself (a
// sentinel such as btf.ErrNotFound, or an error of a deeper call):
//
//	pkgerr.Errorf("btf: type %q: %w", name, ErrNotFound)
//
// says "btf: type "x": not found", where fmt.Errorf would say
// "btf: type "x": btf: not found". errors.Is and errors.As still reach
// the wrapped errors.
//
// # Concurrency
//
// Errorf is safe for concurrent use.
package pkgerr

import (
	"fmt"
	"strings"
)

// Errorf is fmt.Errorf for a format that starts with the package's prefix,
// "PKG: ". Each error argument whose message starts with the same "PKG: "
// is formatted without it. A format without ": " is fmt.Errorf's.
func Errorf(format string, args ...any) error {
	i := strings.Index(format, ": ")
	if i <= 0 {
		return fmt.Errorf(format, args...)
	}
	prefix := format[:i+2]
	cloned := false
	for j, a := range args {
		e, ok := a.(error)
		if !ok || e == nil {
			continue
		}
		if msg, ok := strings.CutPrefix(e.Error(), prefix); ok {
			if !cloned {
				args, cloned = append([]any(nil), args...), true
			}
			args[j] = &trimmed{msg: msg, err: e}
		}
	}
	return fmt.Errorf(format, args...)
}

// trimmed is an error shown without its package's prefix.
type trimmed struct {
	msg string
	err error
}

func (t *trimmed) Error() string { return t.msg }
func (t *trimmed) Unwrap() error { return t.err }
