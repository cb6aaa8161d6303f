package uevent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/fuzztest"
)

// FuzzParse checks that Parse never panics, and that an event it
// accepts parses back the same from the kernel's format. The seed corpus
// in testdata/fuzz/FuzzParse holds a real kernel event (writing "change"
// to /sys/devices/virtual/mem/null/uevent on Linux 6.18, received with
// sender port id 0).
func FuzzParse(f *testing.F) {
	f.Add([]byte("add@/module/x\x00ACTION=add\x00DEVPATH=/module/x\x00SUBSYSTEM=module\x00SEQNUM=7\x00"))
	f.Add([]byte("libudev\x00\xfe\xed\xca\xfe"))
	f.Fuzz(func(t *testing.T, in []byte) {
		ev, err := Parse(in)
		fuzztest.CheckError(t, "uevent", err)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		_ = ev.Module()
		if ev.Action == "" || ev.DevPath == "" {
			// ACTION= or DEVPATH= may override the header with "": the
			// event is kept as the kernel sent it, but has no round trip.
			return
		}
		// The variables override the header, which may not hold an
		// action with an "@".
		again := fmt.Sprintf("x@y\x00ACTION=%s\x00DEVPATH=%s\x00SUBSYSTEM=%s\x00SEQNUM=%d\x00",
			ev.Action, ev.DevPath, ev.Subsystem, ev.Seqnum)
		ev2, err := Parse([]byte(again))
		if err != nil || ev2 != ev {
			t.Fatalf("%q parsed as %+v; its re-encoding %q as %+v, %v", in, ev, again, ev2, err)
		}
	})
}
