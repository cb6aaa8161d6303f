package kallsyms

import (
	"bytes"
	"errors"
	"path"
	"strconv"
)

// Uevent is one kobject uevent as the kernel broadcasts it on
// NETLINK_KOBJECT_UEVENT: "ACTION@DEVPATH" followed by KEY=VALUE pairs.
type Uevent struct {
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
func (e Uevent) Module() string {
	if e.Subsystem != "module" {
		return ""
	}
	return path.Base(e.DevPath)
}

var errBadUevent = errors.New("kallsyms: malformed uevent")

// parseUevent parses a kernel uevent message. Messages in udev's own
// format ("libudev" header) and messages without "ACTION@DEVPATH" are
// rejected with errBadUevent.
func parseUevent(b []byte) (Uevent, error) {
	head, rest, _ := bytes.Cut(b, []byte{0})
	action, devpath, ok := bytes.Cut(head, []byte("@"))
	if !ok || len(action) == 0 || len(devpath) == 0 {
		return Uevent{}, errBadUevent
	}
	ev := Uevent{Action: string(action), DevPath: string(devpath)}
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
