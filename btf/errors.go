package btf

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, matchable with errors.Is.
var (
	// ErrNotFound is returned when no type matches a lookup.
	ErrNotFound = errors.New("btf: not found")
	// ErrMultipleMatches is returned by lookups that want one type and find several.
	ErrMultipleMatches = errors.New("btf: multiple matches")
	// ErrClosed is returned when a Spec (or its base) is used after Close.
	ErrClosed = errors.New("btf: spec is closed")
	// ErrNoBTF is returned for an ELF file without a .BTF section.
	ErrNoBTF = errors.New("btf: no .BTF section")
)

// errDiscarded is returned for a type whose record discard gave back
// (internal/btfmem), and by lookups that would walk over such records.
// Only kmeta's dedup discards, from a Spec it then closes.
var errDiscarded = errors.New("btf: type record discarded")

// FormatError describes malformed BTF: which section, the byte offset within
// it where the problem was found, and the type involved, if any.
type FormatError struct {
	Section string // "header", "type", "string", "layout", "elf", ...
	Offset  int64  // byte offset within the section, -1 if unknown
	TypeID  TypeID // the type whose record is bad, 0 if none
	Msg     string
	Err     error // underlying cause, if any
}

// Error describes the problem: the type, where it is (the section and
// offset, in parentheses after a type), and what is wrong, each once:
// "btf: type 5 (type section offset 40): refers to type 9, beyond the
// last (8)", "btf: string section offset 0: not NUL: ...".
func (e *FormatError) Error() string {
	s := "btf: "
	where := ""
	if e.Section != "" {
		where = e.Section + " section"
		if e.Offset >= 0 {
			where += fmt.Sprintf(" offset %d", e.Offset)
		}
	}
	switch {
	case e.TypeID != 0 && where != "":
		s += fmt.Sprintf("type %d (%s): ", e.TypeID, where)
	case e.TypeID != 0:
		s += fmt.Sprintf("type %d: ", e.TypeID)
	case where != "":
		s += where + ": "
	}
	s += e.Msg
	if e.Err != nil {
		if e.Msg != "" {
			s += ": "
		}
		// A cause that names the section again (internal/wire's
		// "header: ...") says it once: "header section: header: ...".
		s += strings.TrimPrefix(e.Err.Error(), e.Section+": ")
	}
	return s
}

// Unwrap returns the underlying cause, or nil.
func (e *FormatError) Unwrap() error { return e.Err }

// errEmpty returns the error for an empty input: it has no header to
// name, nor an offset. (A new one each time: a caller may change what
// errors.As gives it.)
func errEmpty() error { return &FormatError{Offset: -1, Msg: "the input is empty"} }

func typeErr(id TypeID, off uint32, format string, args ...any) error {
	return &FormatError{Section: "type", Offset: int64(off), TypeID: id, Msg: fmt.Sprintf(format, args...)}
}
