package kallsyms

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// referenceEncode encodes name by the rule names.go states, one position
// at a time and without the codec's tables: the longest token longer than
// two bytes that starts with the next two bytes, if the name continues
// with it; else the two-byte token of those bytes; else the byte itself,
// escaped unless it is printable ASCII.
func referenceEncode(name []byte) []byte {
	var out []byte
	for i := 0; i < len(name); {
		b := name[i]
		if !literal(b) {
			out = append(out, escByte, b)
			i++
			continue
		}
		code, k := b, 1
		if i+1 < len(name) {
			long := -1
			for j, t := range nameTokens {
				if len(t) > 2 && t[0] == b && t[1] == name[i+1] && (long < 0 || len(t) > len(nameTokens[long])) {
					long = j
				}
			}
			if long >= 0 && bytes.HasPrefix(name[i:], []byte(nameTokens[long])) {
				code, k = tokenCode(long), len(nameTokens[long])
			} else if j := pairToken(name[i : i+2]); j >= 0 {
				code, k = tokenCode(j), 2
			}
		}
		out = append(out, code)
		i += k
	}
	return out
}

func pairToken(p []byte) int {
	for j, t := range nameTokens {
		if t == string(p) {
			return j
		}
	}
	return -1
}

// TestEncodeNames checks the encoder against referenceEncode and the
// decoders against the input, on every name of the host fixture and on
// hostile ones.
func TestEncodeNames(t *testing.T) {
	var all []string
	sc := bufio.NewScanner(bytes.NewReader(testfixtures.ReadPath(t, hostFixture)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 {
			all = append(all, f[2])
		}
	}
	if len(all) < 100000 {
		t.Fatalf("only %d names in %s", len(all), hostFixture)
	}
	all = append(all, "", "_", "__", "\x00", "\xff\xfe", "a\x00b", "x\x7f\x80y",
		"__pfx_"+strings.Repeat("do_sys_", 80), strings.Repeat("\xff", 40))
	for c := range 256 {
		all = append(all, string([]byte{byte(c)}), "__"+string([]byte{byte(c)}), string([]byte{byte(c)})+"_sys_")
	}
	for _, tok := range nameTokens {
		all = append(all, tok, tok[:len(tok)-1], tok+"\x00", tok[:2]+"\x01"+tok[2:])
	}
	var e encoder
	for _, name := range all {
		enc, esc := e.appendEncoded([]byte("prefix"), []byte(name))
		if string(enc[:6]) != "prefix" {
			t.Fatalf("%q: appendEncoded changed dst", name)
		}
		enc = enc[6:]
		if want := referenceEncode([]byte(name)); !bytes.Equal(enc, want) {
			t.Fatalf("%q: encoded %x, want %x", name, enc, want)
		}
		if esc != (bytes.IndexByte(enc, escByte) >= 0) {
			t.Errorf("%q: esc = %v for %x", name, esc, enc)
		}
		if got := names.appendDecoded(nil, enc); string(got) != name {
			t.Fatalf("%q: decoded %q", name, got)
		}
		if !esc {
			if got := names.appendPlain([]byte("p"), enc); string(got) != "p"+name {
				t.Fatalf("%q: appendPlain gave %q", name, got)
			}
		}
	}
}

// FuzzEncodeNames checks the encoder against referenceEncode, and that
// decoding gives the name back, for any bytes.
func FuzzEncodeNames(f *testing.F) {
	for _, s := range []string{"do_sys_open", "__pfx_x64_sys_call", "\xffa\x00", "e_t_re_s"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, name []byte) {
		var e encoder
		enc, esc := e.appendEncoded(nil, name)
		if want := referenceEncode(name); !bytes.Equal(enc, want) {
			t.Fatalf("%q: encoded %x, want %x", name, enc, want)
		}
		if got := names.appendDecoded(nil, enc); !bytes.Equal(got, name) {
			t.Fatalf("%q: decoded %q", name, got)
		}
		if !esc {
			if got := names.appendPlain(nil, enc); !bytes.Equal(got, name) {
				t.Fatalf("%q: appendPlain gave %q", name, got)
			}
		}
	})
}
