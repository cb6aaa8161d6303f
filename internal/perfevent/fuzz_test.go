package perfevent

import (
	"encoding/binary"
	"testing"
)

// FuzzParse checks that Parse never panics or reads past its input, that
// a record it accepts has a size within the input, and that an accepted
// ksymbol record encodes back to a record that parses the same. The
// corpus holds records captured from this machine's kernel.
func FuzzParse(f *testing.F) {
	f.Add(ksymRecord(0xffffffffc0001000, 20, KsymTypeBPF, KsymFlagUnregister, "bpf_prog_0123456789abcdef_f", 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, withTime := range []bool{true, false} {
			r, n, err := Parse(b, withTime)
			if err != nil {
				continue
			}
			if n < headerSize || n > len(b) || len(r.Name) > MaxNameLen {
				t.Fatalf("Parse = %+v, %d for %d bytes", r, n, len(b))
			}
			if r.Type == RecordKsymbol && withTime {
				again, _, err := Parse(ksymRecord(r.Addr, r.Len, r.KsymType, r.Flags, r.Name, r.Time), true)
				again.Misc = r.Misc // ksymRecord writes 0
				if err != nil || again != r {
					t.Fatalf("round trip: %+v, %v; want %+v", again, err, r)
				}
			}
		}
	})
}

// FuzzDrain runs the ring reader over arbitrary ring contents and
// positions: it must stop at head, call fn only with slices that parse
// within their length, and never panic.
func FuzzDrain(f *testing.F) {
	f.Add(ksymRecord(0x1000, 8, KsymTypeBPF, 0, "bpf_prog_0123456789abcdef_wrap", 7), uint64(0), uint64(56))
	f.Fuzz(func(t *testing.T, ring []byte, tail, head uint64) {
		size := 1
		for size*2 <= len(ring) && size < 1<<12 {
			size *= 2
		}
		if len(ring) == 0 {
			return
		}
		data := ring[:size]
		var scratch []byte
		got, err := drain(data, tail, head, &scratch, func(b []byte) {
			if len(b) < headerSize || int(binary.NativeEndian.Uint16(b[6:])) != len(b) {
				t.Fatalf("drain passed %d bytes claiming %d", len(b), binary.NativeEndian.Uint16(b[6:]))
			}
			Parse(b, true)
		})
		if got != head {
			t.Fatalf("drain returned %d, want head %d (err %v)", got, head, err)
		}
	})
}
