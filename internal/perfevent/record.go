package perfevent

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Record types (enum perf_event_type in include/uapi/linux/perf_event.h)
// that this package decodes; Parse returns other types with only Type,
// Misc and Time set.
const (
	RecordLost     = 2
	RecordKsymbol  = 17
	RecordBPFEvent = 18
)

// Values of Record.KsymType (PERF_RECORD_KSYMBOL_TYPE_*).
const (
	KsymTypeUnknown = 0
	KsymTypeBPF     = 1 // BPF programs, trampolines and dispatchers: the "bpf" pseudo-module
	KsymTypeOOL     = 2 // out-of-line code: ftrace and kprobe trampolines
)

// KsymFlagUnregister (PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) in Record.Flags
// says that the symbol goes away.
const KsymFlagUnregister = 1

// Values of Record.BPFType (enum perf_bpf_event_type).
const (
	BPFEventProgLoad   = 1
	BPFEventProgUnload = 2
)

// MaxNameLen is the longest ksymbol name accepted, KSYM_NAME_LEN (512)
// less its NUL.
const MaxNameLen = 511

// headerSize is the size of struct perf_event_header.
const headerSize = 8

// Record is one decoded perf record. Which fields are set depends on Type.
type Record struct {
	Type uint32 // RecordKsymbol, RecordLost, RecordBPFEvent, or another PERF_RECORD_*
	Misc uint16 // the header's misc field
	CPU  int    // the CPU whose ring held the record (set by Reader)
	Time uint64 // CLOCK_MONOTONIC nanoseconds, when the record carries a time

	// RecordKsymbol: the symbol's address and length, its type
	// (KsymTypeBPF, ...), flags (KsymFlagUnregister) and name.
	Addr     uint64
	Len      uint32
	KsymType uint16
	Flags    uint16
	Name     string

	// RecordLost: the event's id and how many records were dropped.
	ID   uint64
	Lost uint64

	// RecordBPFEvent: BPFEventProgLoad or BPFEventProgUnload, its flags,
	// the program's id and tag.
	BPFType  uint16
	BPFFlags uint16
	ProgID   uint32
	Tag      [8]byte
}

// Unregister reports whether r is a ksymbol record that removes its symbol.
func (r *Record) Unregister() bool {
	return r.Type == RecordKsymbol && r.Flags&KsymFlagUnregister != 0
}

// ParseError reports a malformed record at Offset bytes into the bytes
// given to Parse.
type ParseError struct {
	Offset int
	Msg    string
}

// Error names the offset and the problem.
func (e *ParseError) Error() string {
	return fmt.Sprintf("perfevent: record at byte %d: %s", e.Offset, e.Msg)
}

// ErrShort is wrapped by the ParseError of a record that b cuts short.
var ErrShort = errors.New("record cut short")

// Parse decodes the record at the start of b, in the machine's byte order,
// and returns it with its size (the header's, a multiple of 8 for records
// the kernel writes). withTime says that the perf event was opened with
// sample_id_all and PERF_SAMPLE_TIME alone, so that the record's fields
// are followed by its time. Records of types it does not decode are
// returned with only Type and Misc set. A record whose header claims
// fewer bytes than its type needs, more bytes than b holds, or a ksymbol
// name without its NUL or longer than MaxNameLen returns a *ParseError;
// nothing is read outside b and the name is the only allocation.
//
// The time is read where the fields end, not from the record's end: the
// kernel (perf_event_ksymbol_output and perf_event_bpf_output, at least
// to 6.18) grows one shared header's size by the sample_id's for every
// event with sample_id_all on the CPU, and does not restore it, so that
// where several processes follow these records, all but the first see
// records longer than their fields, with bytes the kernel did not write
// at the end. Those bytes are ignored.
func Parse(b []byte, withTime bool) (Record, int, error) {
	bo := binary.NativeEndian
	if len(b) < headerSize {
		return Record{}, 0, &ParseError{0, fmt.Sprintf("%d bytes, want a header of 8: %v", len(b), ErrShort)}
	}
	r := Record{Type: bo.Uint32(b), Misc: bo.Uint16(b[4:])}
	size := int(bo.Uint16(b[6:]))
	if size < headerSize {
		return Record{}, 0, &ParseError{6, fmt.Sprintf("size %d is less than the header", size)}
	}
	if size > len(b) {
		return Record{}, 0, &ParseError{6, fmt.Sprintf("size %d, only %d bytes: %v", size, len(b), ErrShort)}
	}
	body := b[headerSize:size]
	if need := bodySize(r.Type); len(body) < need {
		return Record{}, 0, &ParseError{headerSize, fmt.Sprintf("type %d: %d bytes of body, want at least %d", r.Type, len(body), need)}
	}
	end := 0 // where the fields end in body, for the time after them
	switch r.Type {
	case RecordLost:
		r.ID, r.Lost, end = bo.Uint64(body), bo.Uint64(body[8:]), 16
	case RecordKsymbol:
		r.Addr, r.Len = bo.Uint64(body), bo.Uint32(body[8:])
		r.KsymType, r.Flags = bo.Uint16(body[12:]), bo.Uint16(body[14:])
		name := body[16:]
		n := bytes.IndexByte(name, 0)
		switch {
		case n < 0:
			return Record{}, 0, &ParseError{headerSize + 16, "ksymbol name without its NUL"}
		case n > MaxNameLen:
			return Record{}, 0, &ParseError{headerSize + 16, fmt.Sprintf("ksymbol name of %d bytes, more than %d", n, MaxNameLen)}
		}
		r.Name = string(name[:n])
		end = 16 + (n+1+7)&^7 // the kernel pads the name with NULs to 8 bytes
	case RecordBPFEvent:
		r.BPFType, r.BPFFlags, r.ProgID = bo.Uint16(body), bo.Uint16(body[2:]), bo.Uint32(body[4:])
		copy(r.Tag[:], body[8:16])
		end = 16
	default:
		return r, size, nil // the fields' size is not known: nor is the time's place
	}
	if withTime {
		if end+8 > len(body) {
			return Record{}, 0, &ParseError{headerSize + end, fmt.Sprintf("type %d: no room for the time after %d bytes of fields in a body of %d", r.Type, end, len(body))}
		}
		r.Time = bo.Uint64(body[end:])
	}
	return r, size, nil
}

// bodySize returns the least body (after the header, before sample_id)
// of a record of type typ: 16 bytes for each type Parse decodes (a
// ksymbol's name comes after them), 0 for the others.
func bodySize(typ uint32) int {
	switch typ {
	case RecordLost, RecordKsymbol, RecordBPFEvent:
		return 16
	}
	return 0
}
