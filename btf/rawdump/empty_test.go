package rawdump_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// emptyAggregates is BTF with a struct, an enum, a function prototype and
// a DATASEC that have no members, values, parameters or variables.
func emptyAggregates() []byte {
	strs := []byte("\x00s\x00e\x00.data\x00")
	var types []byte
	for _, w := range []uint32{
		1, wire.Info(wire.KindStruct, 0, false), 0,
		3, wire.Info(wire.KindEnum, 0, false), 4,
		0, wire.Info(wire.KindFuncProto, 0, false), 0,
		5, wire.Info(wire.KindDatasec, 0, false), 0,
	} {
		types = wire.AppendWord(types, w)
	}
	h := wire.Header{Version: 1, HdrLen: 24, TypeLen: uint32(len(types)), StrOff: uint32(len(types)), StrLen: uint32(len(strs))}
	out := wire.AppendHeader(nil, h, binary.NativeEndian)
	return append(append(out, types...), strs...)
}

// TestJSONEmptyLists: like bpftool -j, --json prints empty members,
// values, params and vars arrays rather than leaving the keys out; with
// bpftool at hand, every key bpftool prints is printed.
func TestJSONEmptyLists(t *testing.T) {
	raw := emptyAggregates()
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rawdump.WriteJSON(&buf, s, rawdump.Options{}); err != nil {
		t.Fatal(err)
	}
	got := typeKeys(t, buf.Bytes())
	want := []map[string]bool{
		{"id": true, "kind": true, "name": true, "size": true, "vlen": true, "members": true},
		{"id": true, "kind": true, "name": true, "size": true, "vlen": true, "values": true, "encoding": true},
		{"id": true, "kind": true, "name": true, "ret_type_id": true, "vlen": true, "params": true},
		{"id": true, "kind": true, "name": true, "size": true, "vlen": true, "vars": true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("comparing with bpftool -j: needs bpftool")
	}
	path := filepath.Join(t.TempDir(), "empty.btf")
	os.WriteFile(path, raw, 0o644)
	out, err := exec.Command(bpftool, "-j", "btf", "dump", "file", path).Output()
	if err != nil {
		t.Skipf("bpftool: %v", err)
	}
	for i, keys := range typeKeys(t, out) {
		for k := range keys {
			if !got[i][k] {
				t.Errorf("type %d: bpftool prints %q, kmeta does not", i+1, k)
			}
		}
	}
}

func typeKeys(t *testing.T, b []byte) []map[string]bool {
	t.Helper()
	var doc struct{ Types []map[string]json.RawMessage }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var out []map[string]bool
	for _, typ := range doc.Types {
		keys := map[string]bool{}
		for k := range typ {
			keys[k] = true
		}
		out = append(out, keys)
	}
	return out
}
