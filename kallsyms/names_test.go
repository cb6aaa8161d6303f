package kallsyms

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// tokenCodes maps each token of nameTokens to its code, for
// referenceEncode.
var tokenCodes = func() map[string]uint16 {
	m := make(map[string]uint16)
	for k, t := range nameTokens {
		if t != "" {
			m[t] = uint16(byteCodes + k)
		}
	}
	return m
}()

// referenceEncode encodes name by the rule names.go states, without the
// codec's tables: at each position, the longest token that the rest of the
// name starts with, else the byte itself; each code a little-endian uint16;
// the name raw when the codes take over 1.5 times as much.
func referenceEncode(name []byte) []byte {
	out := []byte{}
	for i := 0; i < len(name); {
		code, k := uint16(name[i]), 1
		for l := min(maxTokenLen, len(name)-i); l >= 2; l-- {
			if c, ok := tokenCodes[string(name[i:i+l])]; ok {
				code, k = c, l
				break
			}
		}
		out = append(out, byte(code), byte(code>>8))
		i += k
	}
	if pad := 1 + len(name)%2; 2*len(out) > 3*(len(name)+pad) {
		// Raw: the name, then pad bytes of value pad (odd length).
		out = append(slices.Clip(name), bytes.Repeat([]byte{byte(pad)}, pad)...)
	}
	return out
}

// fixtureNames returns every name of the host fixture, data symbols and
// __pfx_ ones included.
func fixtureNames(tb testing.TB) []string {
	tb.Helper()
	var all []string
	sc := bufio.NewScanner(bytes.NewReader(readFixture(tb, hostFixture)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 {
			all = append(all, f[2])
		}
	}
	if len(all) < 100000 {
		tb.Fatalf("only %d names in %s", len(all), hostFixture)
	}
	return all
}

// hostTextNames returns the names of the host fixture's text symbols that
// the package stores (not the __pfx_ ones, which are hidden): the names
// the dictionary was trained on.
func hostTextNames(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(readFixture(tb, hostFixture)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 3 && strings.ContainsAny(f[1], "tTwW") && !strings.HasPrefix(f[2], pfxPrefix) {
			out = append(out, []byte(f[2]))
		}
	}
	return out
}

// hostileNames returns names no kernel makes: empty, control and high
// bytes, the longest names, and tokens cut or interrupted.
func hostileNames() []string {
	all := []string{"", "_", "__", "\x00", "\xff\xfe", "a\x00b", "x\x7f\x80y",
		"\x00\x01", "\xff\xff", "__pfx_" + strings.Repeat("do_sys_", 80),
		strings.Repeat("\xff", 40), strings.Repeat("\x00", MaxNameLen),
		strings.Repeat("_", 512), strings.Repeat("trace_event_", MaxNameLen/12)}
	for c := range 256 {
		b := string([]byte{byte(c)})
		all = append(all, b, "__"+b, b+"_sys_", "x64_"+b+"sys_")
	}
	for _, tok := range nameTokens {
		if tok == "" {
			continue
		}
		all = append(all, tok, tok[:len(tok)-1], tok[1:], tok+"\x00", tok[:1]+"\x01"+tok[1:],
			tok[:len(tok)-1]+"\x80")
	}
	return all
}

// checkName encodes name and checks the encoding against referenceEncode,
// that it does not depend on dst, and that the decoders give the name
// back.
func checkName(t *testing.T, name []byte) {
	t.Helper()
	enc := names().appendTo([]byte("prefix"), name)
	if string(enc[:6]) != "prefix" {
		t.Fatalf("%q: appendTo changed dst", name)
	}
	enc = enc[6:]
	if want := referenceEncode(name); !bytes.Equal(enc, want) {
		t.Fatalf("%q: encoded %x, want %x", name, enc, want)
	}
	if got := appendEncodedString(nil, string(name)); !bytes.Equal(got, enc) {
		t.Fatalf("%q: appendEncodedString gave %x, appendTo %x", name, got, enc)
	}
	if got := names().appendDecoded(nil, enc); !bytes.Equal(got, name) {
		t.Fatalf("%q: appendDecoded gave %q", name, got)
	}
	if got := names().appendDecoded([]byte("p"), enc); string(got) != "p"+string(name) {
		t.Fatalf("%q: appendDecoded after p gave %q", name, got)
	}
	if got := names().decode(pfxPrefix, enc); got != pfxPrefix+string(name) {
		t.Fatalf("%q: decode gave %q", name, got)
	}
}

// TestEncodeNames checks the encoder against referenceEncode and the
// decoders against the input, on every name of the host fixture and on
// hostile ones.
func TestEncodeNames(t *testing.T) {
	t.Parallel()
	for _, name := range append(fixtureNames(t), hostileNames()...) {
		checkName(t, []byte(name))
	}
}

// TestEncodeRandom checks random byte strings of up to MaxNameLen bytes:
// any byte, high bytes only, and runs of tokens and their fragments, which
// end tokens at every offset.
func TestEncodeRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 3000 {
		n := r.IntN(MaxNameLen + 1)
		if k%10 == 0 {
			n = []int{0, 1, 511, 512, 513, MaxNameLen}[k/10%6]
		}
		name := make([]byte, 0, n)
		for len(name) < n {
			switch k % 3 {
			case 0:
				name = append(name, byte(r.Uint32()))
			case 1:
				name = append(name, 0x80|byte(r.Uint32()), 0, 0xff)
			case 2:
				tok := nameTokens[r.IntN(len(nameTokens))] + "?"
				name = append(name, tok[:1+r.IntN(len(tok))]...)
			}
		}
		checkName(t, name[:n])
	}
}

// TestEncodeDeterministic checks that equal names have equal encodings
// whatever the encoder encoded before, and that different names of the
// host have different ones.
func TestEncodeDeterministic(t *testing.T) {
	t.Parallel()
	all := fixtureNames(t)
	seen := make(map[string]string)
	long := []byte(strings.Repeat("\xfe_x64_sys_", MaxNameLen/10))
	for i, name := range all {
		a := names().appendTo(nil, []byte(name))
		if i%64 == 0 {
			names().appendTo(nil, long) // encoding must keep no state
		}
		b := names().appendTo(make([]byte, 0, i%7), []byte(name))
		if !bytes.Equal(a, b) {
			t.Fatalf("%q: encoded %x, then %x", name, a, b)
		}
		if other, ok := seen[string(a)]; ok && other != name {
			t.Fatalf("%q and %q: same encoding %x", name, other, a)
		}
		seen[string(a)] = name
	}
}

// TestDecodeGarbage checks that decoding any bytes stays in bounds and
// defined: codes past the dictionary wrap around it, an odd length is a raw
// name (its pad's length read from bit 1 of the last byte), and dst's bytes
// are kept.
func TestDecodeGarbage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		enc := make([]byte, r.IntN(300))
		for i := range enc {
			enc[i] = byte(r.Uint32())
		}
		got := names().appendDecoded([]byte("dst"), enc)
		if string(got[:3]) != "dst" || len(got)-3 > len(enc)/2*maxTokenLen {
			t.Fatalf("%x: decoded %q", enc, got)
		}
		var want []byte
		if len(enc)%2 == 1 { // raw: the bytes before a pad of 1 or 2
			want = enc[:max(0, len(enc)-1-int(enc[len(enc)-1]>>1&1))]
		}
		for i := 0; len(enc)%2 == 0 && i+1 < len(enc); i += 2 {
			e := &names().dec[int(uint16(enc[i])|uint16(enc[i+1])<<8)%numCodes]
			want = append(want, e[:e[maxTokenLen]]...)
		}
		if !bytes.Equal(got[3:], want) {
			t.Fatalf("%x: decoded %q, want %q", enc, got[3:], want)
		}
		if s := names().decode("", enc); s != string(want) {
			t.Fatalf("%x: decode gave %q, want %q", enc, s, want)
		}
	}
}

// TestCodecTables checks that every token decodes to itself and is found
// by the encoder whole.
func TestCodecTables(t *testing.T) {
	for k, tok := range nameTokens {
		code := uint16(byteCodes + k)
		if got := names().appendDecoded(nil, []byte{byte(code), byte(code >> 8)}); string(got) != tok {
			t.Fatalf("code %d decodes to %q, want %q", code, got, tok)
		}
		if tok == "" {
			continue
		}
		if got := appendEncodedString(nil, tok); len(got) != 2 || uint16(got[0])|uint16(got[1])<<8 != code {
			t.Fatalf("token %q (code %d) encodes to %x", tok, code, got)
		}
	}
}

// FuzzEncodeNames checks the encoder against referenceEncode, and that
// decoding gives the name back, for any bytes. The seeds are a sample of
// the host's names and hostile ones.
func FuzzEncodeNames(f *testing.F) {
	for i, name := range hostTextNames(f) {
		if i%101 == 0 {
			f.Add(name)
		}
	}
	for _, s := range []string{"", "do_sys_open", "__pfx_x64_sys_call", "\xffa\x00", "e_t_re_s", "\x00\x01\x02"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, name []byte) {
		checkName(t, name)
	})
}

// BenchmarkNames measures the codec on the host's text names (those the
// dictionary was trained on): ns/op is per name, encoding (Encode, as Load
// does) and decoding (Decode, as LookupAppend does). B/name is the size of
// an encoded name.
func BenchmarkNames(b *testing.B) {
	all := hostTextNames(b)
	var encs [][]byte
	total := 0
	for _, n := range all {
		enc := names().appendTo(nil, n)
		encs = append(encs, enc)
		total += len(enc)
	}
	b.Run("Encode", func(b *testing.B) {
		var buf []byte
		i := 0
		for b.Loop() {
			buf = names().appendTo(buf[:0], all[i])
			if i++; i == len(all) {
				i = 0
			}
		}
		b.ReportMetric(float64(total)/float64(len(all)), "B/name")
	})
	b.Run("Decode", func(b *testing.B) {
		buf := make([]byte, 0, 1024)
		i := 0
		for b.Loop() {
			buf = names().appendDecoded(buf[:0], encs[i])
			if i++; i == len(encs) {
				i = 0
			}
		}
	})
}
