package rawdump_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
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

// TestJSONEmptyLists: the members, values, params and vars of a type that
// has none are written as [], as the vocabulary (docs/json.md) says.
func TestJSONEmptyLists(t *testing.T) {
	s, err := btf.Parse(emptyAggregates(), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rawdump.WriteJSON(&buf, s, rawdump.Options{}); err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"kind":"struct","name":"s","size":0,"members":[]}
{"id":2,"kind":"enum","name":"e","size":4,"signed":false,"values":[]}
{"id":3,"kind":"func_proto","ret_type_id":0,"params":[]}
{"id":4,"kind":"datasec","name":".data","size":0,"vars":[]}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestJSONBpftool: WriteJSON gives the data of "bpftool -j btf dump",
// rewritten in the vocabulary (vocabulary below): for the BTF with empty
// lists and for a module over its vmlinux, and with KMETA_HEAVY=1 for every
// type of the vmlinux.
func TestJSONBpftool(t *testing.T) {
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("comparing with bpftool -j: needs bpftool")
	}
	dir := t.TempDir()
	vmlinux := testfixtures.Read(t, testfixtures.DebianVmlinux)
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := write("vmlinux", vmlinux)
	type bpftoolCase struct {
		name string
		raw  []byte
		base bool // raw is split BTF over the vmlinux
	}
	cases := []bpftoolCase{{"empty", emptyAggregates(), false}, {"af_key", testfixtures.Modules(t)["af_key"], true}}
	if testfixtures.Heavy() {
		cases = append(cases, bpftoolCase{"vmlinux", vmlinux, false})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-j", "btf", "dump", "file", write(tc.name, tc.raw)}
			var baseSpec *btf.Spec
			if tc.base {
				args = append([]string{"-B", base}, args...)
				baseSpec = testfixtures.Spec(t, vmlinux, nil)
			}
			out, err := exec.Command(bpftool, args...).Output()
			if err != nil {
				t.Skipf("bpftool: %v", err)
			}
			s := testfixtures.Spec(t, tc.raw, baseSpec)
			var buf bytes.Buffer
			if err := rawdump.WriteJSON(&buf, s, rawdump.Options{Scope: btf.ScopeOwn}); err != nil {
				t.Fatal(err)
			}
			compareBpftool(t, out, buf.Bytes())
		})
	}
}

// compareBpftool compares WriteJSON's lines with bpftool -j's document.
func compareBpftool(t *testing.T, bpftool, kmeta []byte) {
	t.Helper()
	var doc struct{ Types []map[string]any }
	if err := decode(bpftool, &doc); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(kmeta))
	sc.Buffer(nil, 1<<24)
	i := 0
	for ; sc.Scan(); i++ {
		var got map[string]any
		if err := decode(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if i >= len(doc.Types) {
			t.Fatalf("%d types, bpftool %d", i+1, len(doc.Types))
		}
		if want := vocabulary(doc.Types[i]); !reflect.DeepEqual(want, got) {
			t.Fatalf("type %d (-bpftool +kmeta):\n%s", i+1, cmp.Diff(want, got))
		}
	}
	if i != len(doc.Types) {
		t.Errorf("%d types, bpftool %d", i, len(doc.Types))
	}
}

// decode decodes JSON with its numbers as json.Number, exact to 64 bits.
func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// vocabulary rewrites one type of bpftool -j in kmeta's JSON vocabulary:
// kinds in lower case, "(anon)" left out, keys that count bits say "bit",
// no vlen (the length of the list), an enum's encoding as "signed", an
// enumerator's "val" as "value", bitfield_size always written. bpftool
// 7.1 sign-extends the values of an unsigned 32-bit enum to 64 bits
// (E820_TYPE_SOFT_RESERVED is 0xefffffff); the vocabulary's value is the
// enumerator's, as the raw text has it.
func vocabulary(t map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range t {
		switch k {
		case "vlen":
		case "name":
			if v != "(anon)" {
				out[k] = v
			}
		case "kind":
			out[k] = strings.ToLower(v.(string))
		case "bits_offset":
			out["bit_offset"] = v
		case "encoding":
			if t["kind"] == "ENUM" || t["kind"] == "ENUM64" {
				out["signed"] = v == "SIGNED"
			} else {
				out[k] = strings.Trim(strings.ToLower(v.(string)), "()")
			}
		case "members", "params", "values":
			var l []any
			for _, m := range v.([]any) {
				l = append(l, member(t["kind"] == "ENUM", k, m.(map[string]any)))
			}
			out[k] = append([]any{}, l...)
		default:
			out[k] = v
		}
	}
	return out
}

// member rewrites a member, parameter or enumerator of bpftool -j.
func member(enum32 bool, list string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch {
		case k == "name" && v == "(anon)":
		case k == "bits_offset":
			out["bit_offset"] = v
		case k == "val" && enum32 && len(v.(json.Number)) > 10 && v.(json.Number)[0] != '-':
			n, _ := strconv.ParseUint(string(v.(json.Number)), 10, 64)
			out["value"] = json.Number(strconv.FormatUint(n&math.MaxUint32, 10))
		case k == "val":
			out["value"] = v
		default:
			out[k] = v
		}
	}
	if list == "members" && out["bitfield_size"] == nil {
		out["bitfield_size"] = json.Number("0")
	}
	return out
}
