package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/kmeta-dev/kmeta/btf"
)

// Exit statuses, the same for every command (see the README).
const (
	exitOK       = 0 // success
	exitNotFound = 1 // nothing found, a relocation failed, inputs differ
	exitFailure  = 2 // usage errors and every other failure
)

// statusError is an error that asks for a particular exit status.
type statusError struct {
	status int
	err    error
	usage  bool // a usage error, which names the command's usage line
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// notFound returns an error that makes kmeta exit with status 1, as grep
// does when nothing matched, after printing the error.
func notFound(format string, args ...any) error {
	return &statusError{status: exitNotFound, err: fmt.Errorf(format, args...)}
}

// errQuiet ends a command with status 1 without printing anything: the
// command has already said what it found (a diff that differs, a failed
// relocation).
var errQuiet = &statusError{status: exitNotFound, err: errors.New("")}

// exitStatus maps the error a command returned to the process's exit
// status: 0 for nil, the status of a statusError, 130 or 143 when a
// SIGINT or SIGTERM cancelled ctx, and 2 for everything else.
func exitStatus(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	if sig, ok := context.Cause(ctx).(signalCause); ok && ctx.Err() != nil {
		return 128 + int(sig.sig)
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.status
	}
	if errors.Is(err, btf.ErrBaseMismatch) {
		return exitNotFound // a module's distilled base that does not relocate
	}
	return exitFailure
}

// signalCause is the cause of a context cancelled by a signal.
type signalCause struct{ sig syscall.Signal }

// Error is the message of every interrupted command: "interrupted by
// SIGINT".
func (s signalCause) Error() string {
	switch s.sig {
	case syscall.SIGINT:
		return "interrupted by SIGINT"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	}
	return "interrupted by " + s.sig.String()
}

// printable reports whether err should be printed: errQuiet is not.
func printable(err error) bool {
	return err != nil && err != errQuiet
}
