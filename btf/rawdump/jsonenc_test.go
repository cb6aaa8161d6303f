package rawdump_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// reflected is WriteJSON as encoding/json writes each record: what the
// hand-written encoder must reproduce byte for byte.
func reflected(t *testing.T, s *btf.Spec) []byte {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	for _, ty := range s.Types(btf.ScopeAll) {
		if err := enc.Encode(rawdump.ToJSON(ty)); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// oddNames is BTF whose names hold every byte but NUL, invalid UTF-8,
// U+2028 and U+2029, in every kind that has names in its list.
func oddNames(t *testing.T) []byte {
	b := builder.New()
	i, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for c := 1; c < 256; c++ {
		names = append(names, fmt.Sprintf("a%cb", c))
	}
	names = append(names, "\u2028x\u2029", "\xe2\x80", "caf\xc3\xa9", "<&>", `q"b\s`, "\x7f", "\xed\xa0\x80")
	var ms []builder.Member
	var vs []builder.Enumerator
	var ps []builder.Param
	for k, n := range names {
		ms = append(ms, builder.Member{Name: n, Type: i, BitOffset: uint32(32 * k)})
		vs = append(vs, builder.Enumerator{Name: n, Value: uint64(k)})
		ps = append(ps, builder.Param{Name: n, Type: i})
		if _, err := b.AddTypedef(n, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.AddStruct("s\n", uint32(4*len(ms)), ms); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddEnum("e\t", 4, true, vs); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddEnum64("e64", 8, false, append(vs, builder.Enumerator{Name: "max", Value: 1<<64 - 1})); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddFuncProto(i, append(ps, builder.Param{})); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestJSONEncoder: WriteJSON writes what encoding/json writes, on a
// kernel, on names of every byte, and on every hostile shape and
// mixture (every kind).
func TestJSONEncoder(t *testing.T) {
	inputs := map[string][]byte{"debian": testfixtures.Read(t, testfixtures.DebianVmlinux), "odd names": oddNames(t)}
	for _, k := range hostile.All() {
		n := 50
		switch k {
		case hostile.Enums: // copies of 65,535 values
			n = 1
		case hostile.Wide: // a record longer than the encoder's buffer
			n = 3000
		}
		raw, err := hostile.Build(k, n)
		if err != nil {
			t.Fatal(err)
		}
		inputs[k.String()] = raw
	}
	for _, m := range hostile.Mixes() {
		raw, err := hostile.BuildMix(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		inputs[m.String()] = raw
	}
	for name, raw := range inputs {
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got bytes.Buffer
		if err := rawdump.WriteJSON(&got, s, rawdump.Options{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := reflected(t, s); !bytes.Equal(got.Bytes(), want) {
			testfixtures.CompareLines(t, got.Bytes(), want)
			t.Errorf("%s: WriteJSON differs from encoding/json", name)
		}
		s.Close()
	}
}
