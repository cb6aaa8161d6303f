package kallsyms

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// FuzzParse checks that Parse never panics or hangs, and that whatever it
// accepts is self-consistent: every listed symbol resolves by address and
// by name, and LookupAppend agrees with Lookup. The seed corpus in
// testdata/fuzz/FuzzParse holds slices of the real fixtures.
func FuzzParse(f *testing.F) {
	f.Add([]byte("ffffffff81000000 T _stext\nffffffff81000010 t __pfx_f\nffffffff81000020 t f\t[m]\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, data := range []bool{false, true} {
			s, err := Parse(bytes.NewReader(in), &Options{Data: data})
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) && !errors.Is(err, ErrRestricted) {
					t.Fatalf("unexpected error type: %v", err)
				}
				continue
			}
			checkConsistent(t, s)
		}
	})
}

func checkConsistent(t *testing.T, s *Snapshot) {
	n := 0
	for sym := range s.All() {
		if n++; n > 2000 {
			break
		}
		got, err := s.Lookup(sym.Addr)
		if err != nil || got.Addr != sym.Addr {
			t.Fatalf("Lookup(%#x) = %+v, %v; listed %+v", sym.Addr, got, err, sym)
		}
		var app Symbol
		name, err := s.LookupAppend(nil, &app, sym.Addr)
		if err != nil || string(name) != got.Name || app.Addr != got.Addr || app.Module != got.Module {
			t.Fatalf("LookupAppend(%#x) = %+v %q, %v; Lookup %+v", sym.Addr, app, name, err, got)
		}
		found := false
		syms, err := s.LookupName(sym.Name, sym.Module)
		for _, c := range syms {
			found = found || c.Addr == sym.Addr
		}
		if !found {
			t.Fatalf("LookupName(%q, %q) = %v, %v; missing %#x", sym.Name, sym.Module, syms, err, sym.Addr)
		}
	}
	if st := s.Stats(); st.Symbols < 0 || st.Bytes <= 0 {
		t.Fatalf("stats %+v", st)
	}
}

// FuzzUevent checks that parseUevent never panics, and that an event it
// accepts parses back the same from the kernel's format. The seed corpus
// in testdata/fuzz/FuzzUevent holds a real kernel event (writing "change"
// to /sys/devices/virtual/mem/null/uevent on Linux 6.18, received with
// sender port id 0).
func FuzzUevent(f *testing.F) {
	f.Add([]byte("add@/module/x\x00ACTION=add\x00DEVPATH=/module/x\x00SUBSYSTEM=module\x00SEQNUM=7\x00"))
	f.Add([]byte("libudev\x00\xfe\xed\xca\xfe"))
	f.Fuzz(func(t *testing.T, in []byte) {
		ev, err := parseUevent(in)
		if err != nil {
			if !errors.Is(err, errBadUevent) {
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
		ev2, err := parseUevent([]byte(again))
		if err != nil || ev2 != ev {
			t.Fatalf("%q parsed as %+v; its re-encoding %q as %+v, %v", in, ev, again, ev2, err)
		}
	})
}

// FuzzBuildIDNote checks that parseBuildIDNote never panics or reads out
// of bounds, and that a build ID it finds is bytes of its input. The seed
// corpus in testdata/fuzz/FuzzBuildIDNote holds a real note section
// (/sys/kernel/notes of Linux 6.18: the build ID, then Xen and Linux
// notes).
func FuzzBuildIDNote(f *testing.F) {
	f.Add([]byte{4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		id := parseBuildIDNote(in)
		if id != nil && (len(id) == 0 || !bytes.Contains(in, id)) {
			t.Fatalf("build ID %x is not in the input", id)
		}
	})
}
