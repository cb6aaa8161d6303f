package kallsyms

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is returned when no symbol or module matches an address
	// or a name.
	ErrNotFound = errors.New("kallsyms: not found")

	// ErrRestricted is returned when every address in the input is zero:
	// the kernel hides addresses from readers without CAP_SYSLOG when
	// kernel.kptr_restrict is set (or always, for kptr_restrict=2). The
	// package refuses such input rather than resolve addresses wrongly.
	ErrRestricted = errors.New("kallsyms: all addresses are zero (kernel.kptr_restrict hides them; read as root with CAP_SYSLOG or set kernel.kptr_restrict=0)")

	// ErrClosed is returned by methods of a Symbolizer or Monitor after
	// Close.
	ErrClosed = errors.New("kallsyms: closed")

	// ErrUntrustedSender is returned by Monitor.Read, together with the
	// event, for a uevent whose sender port id is neither 0 (the kernel)
	// nor one the Monitor was told to trust. Such events must be ignored:
	// any process with CAP_NET_ADMIN can send them.
	ErrUntrustedSender = errors.New("kallsyms: uevent not sent by the kernel")

	// ErrOverflow is returned by Monitor.Read when the kernel dropped
	// uevents because the socket's receive buffer was full (ENOBUFS). The
	// caller must resynchronize, e.g. with a full reload.
	ErrOverflow = errors.New("kallsyms: uevents lost (receive buffer overflow)")
)

// ParseError reports malformed kallsyms input. Line is 1-based.
type ParseError struct {
	Line int
	Msg  string
}

// Error names the line and what is wrong with it.
func (e *ParseError) Error() string {
	return fmt.Sprintf("kallsyms: line %d: %s", e.Line, e.Msg)
}
