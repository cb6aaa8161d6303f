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

	// ErrNotText is returned, for a snapshot without Options.Data, by a
	// lookup of an address inside a module's range but outside its runs of
	// text symbols: at or above vmlinux's _etext or _einittext, or above
	// the first data symbol after a text symbol, and below the next text
	// symbol. It wraps ErrNotFound.
	ErrNotText error = notText{}
)

// notText is ErrNotText: an error that the compiler lays out, where
// fmt.Errorf would be called by an init function, which faults in the 64
// KB of code around it in every program that imports the package
// (cmd/kmeta/BENCH.md).
type notText struct{}

func (notText) Error() string {
	return "kallsyms: not found: address outside every text symbol (in data? Options.Data keeps data symbols)"
}

// Unwrap makes ErrNotText match ErrNotFound (errors.Is).
func (notText) Unwrap() error { return ErrNotFound }

// ParseError reports malformed kallsyms input. Line is 1-based.
type ParseError struct {
	Line int
	Msg  string
}

// Error names the line and what is wrong with it.
func (e *ParseError) Error() string {
	return fmt.Sprintf("kallsyms: line %d: %s", e.Line, e.Msg)
}
