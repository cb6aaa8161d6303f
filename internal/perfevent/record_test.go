package perfevent

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpus returns the committed seeds of FuzzParse: records captured from
// this machine's 6.18 kernel (go test -run 'Live|Lost' -capture).
func corpus(tb testing.TB) map[string][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "live-*"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no captured records: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		_, lit, _ := strings.Cut(string(b), "[]byte(")
		s, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lit), ")")))
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(p)] = []byte(s)
	}
	return out
}

// TestParseCaptured decodes the records the kernel wrote: a program's
// ksymbol registration and unregistration, its BPF load and unload events,
// a lost record, and a registration that the kernel wrote 8 bytes
// longer than its fields for the second of two readers (see Parse). The kernel's own cross-check: the tag in a
// BPF_EVENT record is the one in the program's symbol name.
func TestParseCaptured(t *testing.T) {
	if !isLittle() {
		t.Skip("the captured records are little-endian")
	}
	var names, tags []string
	kinds := map[string]int{}
	for file, b := range corpus(t) {
		r, n, err := Parse(b, true)
		if err != nil || n != len(b) || n%8 != 0 || r.Time == 0 {
			t.Fatalf("%s: Parse = %+v, %d, %v", file, r, n, err)
		}
		switch r.Type {
		case RecordKsymbol:
			kinds["ksymbol unregister="+strconv.FormatBool(r.Unregister())]++
			if n > 24+(len(r.Name)+8)&^7+8 {
				kinds["ksymbol grown"]++
			}
			if r.KsymType != KsymTypeBPF || r.Len == 0 || r.Addr>>63 == 0 {
				t.Errorf("%s: %+v", file, r)
			}
			names = append(names, r.Name)
		case RecordBPFEvent:
			kinds["bpf_event "+strconv.Itoa(int(r.BPFType))]++
			tags = append(tags, hex.EncodeToString(r.Tag[:]))
		case RecordLost:
			kinds["lost"]++
			if r.Lost == 0 {
				t.Errorf("%s: lost record with 0 lost", file)
			}
		}
		// Without the time, the same bytes parse to the same fields.
		if r2, m, err := Parse(b, false); err != nil || m != n || r2.Name != r.Name || r2.Addr != r.Addr || r2.Time != 0 {
			t.Errorf("%s: Parse without time: %+v, %d, %v", file, r2, m, err)
		}
		// With bytes the kernel did not write after the time (see Parse),
		// the record parses the same.
		long := append(bytes.Clone(b), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
		binary.NativeEndian.PutUint16(long[6:], uint16(len(long)))
		if r3, m, err := Parse(long, true); err != nil || m != len(long) || r3 != r {
			t.Errorf("%s: grown record: %+v, %d, %v; want %+v", file, r3, m, err, r)
		}
	}
	want := map[string]int{"ksymbol unregister=false": 2, "ksymbol unregister=true": 1, "bpf_event 1": 1, "bpf_event 2": 1, "lost": 1, "ksymbol grown": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d records of kind %q, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	for _, name := range names {
		if strings.Contains(name, "_kmt") {
			continue // TestTwoReaders's program, loaded apart
		}
		for _, tag := range tags {
			if !strings.HasPrefix(name, "bpf_prog_"+tag+"_") {
				t.Errorf("symbol %q does not carry the tag %s of the BPF event", name, tag)
			}
		}
	}
}

// ksymRecord encodes a ksymbol record as the kernel does, with a time.
func ksymRecord(addr uint64, size uint32, typ, flags uint16, name string, time uint64) []byte {
	bo := binary.NativeEndian
	nameLen := (len(name) + 1 + 7) &^ 7
	b := make([]byte, 8+16+nameLen+8)
	bo.PutUint32(b, RecordKsymbol)
	bo.PutUint16(b[6:], uint16(len(b)))
	bo.PutUint64(b[8:], addr)
	bo.PutUint32(b[16:], size)
	bo.PutUint16(b[20:], typ)
	bo.PutUint16(b[22:], flags)
	copy(b[24:], name)
	bo.PutUint64(b[len(b)-8:], time)
	return b
}

func TestParseErrors(t *testing.T) {
	good := ksymRecord(0xffffffffc0000000, 64, KsymTypeBPF, 0, "bpf_prog_0123456789abcdef_x", 42)
	r, n, err := Parse(good, true)
	if err != nil || n != len(good) || r.Name != "bpf_prog_0123456789abcdef_x" || r.Time != 42 || r.Len != 64 {
		t.Fatalf("Parse = %+v, %d, %v", r, n, err)
	}
	noNUL := bytes.Clone(good)
	for i := 24; i < len(noNUL)-8; i++ {
		noNUL[i] = 'a'
	}
	long := ksymRecord(1, 1, 1, 0, strings.Repeat("x", MaxNameLen+1), 1)
	tiny := bytes.Clone(good[:16])
	binary.NativeEndian.PutUint16(tiny[6:], 16)
	for name, b := range map[string][]byte{
		"empty":       nil,
		"header only": good[:8],
		"cut":         good[:len(good)-8],
		"size 4":      append([]byte{17, 0, 0, 0, 0, 0, 4, 0}, make([]byte, 8)...),
		"no NUL":      noNUL,
		"long name":   long,
		"short body":  tiny,
	} {
		_, _, err := Parse(b, true)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want a *ParseError", name, err)
		}
	}
}

func TestDrainWraps(t *testing.T) {
	rec := ksymRecord(0x1000, 8, KsymTypeBPF, 0, "bpf_prog_0123456789abcdef_wrap", 7)
	data := make([]byte, 128)
	start := uint64(3*128 + 100) // the record wraps around the ring's end
	for i := range rec {
		data[(start+uint64(i))%128] = rec[i]
	}
	var got []string
	var scratch []byte
	tail, err := drain(data, start, start+uint64(len(rec)), &scratch, func(b []byte) {
		r, _, err := Parse(b, true)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Name)
	})
	if err != nil || tail != start+uint64(len(rec)) || len(got) != 1 || got[0] != "bpf_prog_0123456789abcdef_wrap" {
		t.Errorf("drain = %d, %v; names %q", tail, err, got)
	}
	// A head beyond the ring, and a record claiming more than is left.
	if _, err := drain(data, 0, 129, &scratch, func([]byte) {}); err == nil {
		t.Error("head 129 bytes ahead in a 128-byte ring accepted")
	}
	if _, err := drain(data, start, start+16, &scratch, func([]byte) {}); err == nil {
		t.Error("a record longer than the bytes left accepted")
	}
}
