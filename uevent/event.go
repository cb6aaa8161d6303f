package uevent

import (
	"bytes"
	"errors"
	"path"
	"strconv"
)

// Event is one kobject uevent: "ACTION@DEVPATH" followed by KEY=VALUE
// pairs.
type Event struct {
	// Action is the event's ACTION: "add", "remove", "change", ...
	Action string
	// DevPath is the sysfs path of the object, e.g. "/module/nf_tables".
	DevPath string
	// Subsystem is the SUBSYSTEM variable, e.g. "module" or "mem".
	Subsystem string
	// Seqnum is the SEQNUM variable, or 0.
	Seqnum uint64
	// PortID is the netlink port id of the sender: 0 for the kernel.
	PortID uint32
}

// Module returns the module name of a module event ("" for other
// subsystems).
func (e Event) Module() string {
	if e.Subsystem != "module" {
		return ""
	}
	return path.Base(e.DevPath)
}

// Parse decodes a kernel uevent message. Messages in udev's own format
// ("libudev" header) and messages without "ACTION@DEVPATH" are rejected
// with ErrMalformed. ACTION and DEVPATH variables override the header.
// PortID is left 0: the message does not hold it.
func Parse(b []byte) (Event, error) {
	head, rest, _ := bytes.Cut(b, []byte{0})
	action, devpath, ok := bytes.Cut(head, []byte("@"))
	if !ok || len(action) == 0 || len(devpath) == 0 {
		return Event{}, ErrMalformed
	}
	ev := Event{Action: string(action), DevPath: string(devpath)}
	for len(rest) > 0 {
		var kv []byte
		kv, rest, _ = bytes.Cut(rest, []byte{0})
		k, v, ok := bytes.Cut(kv, []byte("="))
		if !ok {
			continue
		}
		switch string(k) {
		case "ACTION":
			ev.Action = string(v)
		case "DEVPATH":
			ev.DevPath = string(v)
		case "SUBSYSTEM":
			ev.Subsystem = string(v)
		case "SEQNUM":
			ev.Seqnum, _ = strconv.ParseUint(string(v), 10, 64)
		}
	}
	return ev, nil
}

var (
	// ErrMalformed is returned by Parse for a message that is not a
	// kernel uevent.
	ErrMalformed = errors.New("uevent: malformed message")
	// ErrClosed is returned by Read after Close.
	ErrClosed = errors.New("uevent: monitor closed")
	// ErrUntrustedSender is returned by Read, together with the event, for
	// a uevent whose sender port id is neither 0 (the kernel) nor one the
	// Monitor was told to trust. Such events must be ignored.
	ErrUntrustedSender = errors.New("uevent: not sent by the kernel")
	// ErrOverflow is returned by Read when the kernel dropped uevents
	// because the socket's receive buffer was full (ENOBUFS). The caller
	// must resynchronize; the Monitor stays usable.
	ErrOverflow = errors.New("uevent: events lost (receive buffer overflow)")
)
