package kallsyms

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("x", MaxNameLen+1)
	tests := []struct {
		name, in string
		line     int
		says     string // in the message, if not empty
	}{
		{"no address", "zz t foo\n", 1, ""},
		{"no type", "ffffffff81000000\n", 1, ""},
		{"no name", "ffffffff81000000 t\n", 1, ""},
		{"address too long", "1ffffffff81000000 t foo\n", 1, ""},
		{"name too long", "ffffffff81000000 t " + long + "\n", 1, "longer than " + strconv.Itoa(MaxNameLen) + " bytes"},
		{"bad module", "ffffffff81000000 t foo\t[mod\n", 1, ""},
		{"junk after module", "ffffffff81000000 t foo [m] x\n", 1, ""},
		{"vmlinux module", "ffffffff81000000 t foo\t[vmlinux]\n", 1, ""},
		{"second line", "ffffffff81000000 t foo\nffffffff81000010 t\n", 2, ""},
		{"line too long", "ffffffff81000000 t foo\n" + strings.Repeat("a", 10000), 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in), Options{})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse: %v, want *ParseError", err)
			}
			if pe.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", pe.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%v: want %q in it", err, tc.says)
			}
		})
	}
}

func TestRestricted(t *testing.T) {
	in := "0000000000000000 T _stext\n0000000000000000 t foo\t[mod]\n"
	if _, err := Parse(strings.NewReader(in), Options{}); !errors.Is(err, ErrRestricted) {
		t.Fatalf("Parse: %v, want ErrRestricted", err)
	}
	if !strings.Contains(ErrRestricted.Error(), "kptr_restrict") {
		t.Error("ErrRestricted does not say why")
	}
}

func TestEmptyInput(t *testing.T) {
	s := mustParse(t, nil, nil)
	_, err := s.Lookup(0xffffffff81000000)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup on empty: %v", err)
	}
	if want := "kallsyms: address 0xffffffff81000000: not found"; err == nil || err.Error() != want {
		t.Errorf("Lookup on empty: %v, want %q", err, want)
	}
	if len(s.Modules()) != 0 || s.Stats().Symbols != 0 {
		t.Errorf("empty snapshot has content: %+v", s.Stats())
	}
	var zero Snapshot
	if _, err := zero.Lookup(1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup on zero Snapshot: %v", err)
	}
}

// TestLongNames checks that names up to MaxNameLen are kept whole, those
// with non-ASCII bytes too.
func TestLongNames(t *testing.T) {
	n512 := strings.Repeat("a_b", 170) + "xy"
	n1024 := strings.Repeat("z", MaxNameLen)
	odd := "caf\xc3\xa9_\x01\xff"
	in := "ffffffff81000000 T " + n512 + "\nffffffff81000100 t " + n1024 + "\nffffffff81000200 t " + odd + "\n"
	s := mustParse(t, []byte(in), nil)
	for addr, want := range map[uint64]string{0xffffffff81000010: n512, 0xffffffff81000100: n1024, 0xffffffff81000201: odd} {
		sym, err := s.Lookup(addr)
		if err != nil || sym.Name != want {
			t.Errorf("Lookup(%#x) = %q (%d bytes), %v; want %d bytes", addr, sym.Name, len(sym.Name), err, len(want))
		}
		var got Symbol
		buf, err := s.LookupAppend(nil, &got, addr)
		if err != nil || string(buf) != want || got.Module != Vmlinux {
			t.Errorf("LookupAppend(%#x) = %q, %v", addr, buf, err)
		}
	}
	if syms, err := s.LookupName(odd, ""); err != nil || len(syms) != 1 {
		t.Errorf("LookupName(odd) = %v, %v", syms, err)
	}
}

// TestPseudoModulesAndInitClones checks the synthetic fixture's [bpf]
// programs and the init clones listed after all modules: each module
// appears once, and clones belong to their module.
func TestPseudoModulesAndInitClones(t *testing.T) {
	text := readFixture(t, synthFixture)
	infos := sysfsInfos(t)
	s := mustParse(t, text, &Options{Modules: infos})
	mods := s.Modules()
	seen := map[string]bool{}
	for _, m := range mods {
		if seen[m.Name] {
			t.Errorf("module %s listed twice", m.Name)
		}
		seen[m.Name] = true
	}
	if len(mods) != 152 || mods[0].Name != Vmlinux || !seen["bpf"] {
		t.Fatalf("got %d modules, first %s", len(mods), mods[0].Name)
	}
	bpf, _ := s.Module("bpf")
	if !bpf.Pseudo || bpf.Symbols != 20 {
		t.Errorf("bpf module: %+v", bpf)
	}
	m0, _ := s.Module("synmod000")
	want := []byte{0xa5, 0x29, 0xff, 0x3b, 0xdd, 0xd3, 0xa2, 0xae, 0xea, 0x60, 0xaf, 0xfc, 0xeb, 0x5a, 0xd4, 0x3c, 0x0a, 0xe1, 0x55, 0x16}
	if diff := cmp.Diff(want, m0.BuildID); diff != "" || m0.State != "live" || m0.Start != 0xffffffffc0000000 {
		t.Errorf("synmod000: %+v %s", m0, diff)
	}
	for addr, want := range map[uint64]Symbol{
		0xffffffffc0022004: {Name: "synmod000_init", Module: "synmod000", Addr: 0xffffffffc0022000, Offset: 4},
		0xffffffffa0000810: {Name: "bpf_prog_870801d652bf98e2_prog1", Module: "bpf", Addr: 0xffffffffa0000800, Offset: 0x10},
	} {
		got, err := s.Lookup(addr)
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("Lookup(%#x): %v %s", addr, err, diff)
		}
	}
}

// TestModuleWithoutSymbols checks that an address inside a module known
// only from sysfs resolves to module + offset, not to a wrong symbol.
func TestModuleWithoutSymbols(t *testing.T) {
	infos := sysfsInfos(t)
	s := mustParse(t, readFixture(t, hostFixture), &Options{Modules: infos})
	got, err := s.Lookup(0xffffffffc0000123)
	want := Symbol{Module: "synmod000", Addr: 0xffffffffc0000000, Offset: 0x123}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Lookup: %v %s", err, diff)
	}
	if _, err := s.Lookup(0xffffffffc0000000 + 135168 + 0x100); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup past coresize: %v, want ErrNotFound", err)
	}
}

func TestBuildIDNote(t *testing.T) {
	note := []byte{4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 0}
	if got := parseBuildIDNote(note); !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Errorf("got %x", got)
	}
	for i := range note {
		_ = parseBuildIDNote(note[:i]) // must not panic
	}
	note[0] = 0xff // lying name size
	if got := parseBuildIDNote(note); got != nil {
		t.Errorf("lying note: %x", got)
	}
}

// TestHex8 checks hex8 against hexDigit with every byte value at every
// position among valid digits, and with random strings.
func TestHex8(t *testing.T) {
	slow := func(b []byte) (uint64, bool) {
		var v uint64
		for _, c := range b {
			d := hexDigit(c)
			if d < 0 {
				return 0, false
			}
			v = v<<4 | uint64(d)
		}
		return v, true
	}
	check := func(b []byte) {
		t.Helper()
		want, wok := slow(b)
		got, ok := hex8(binary.BigEndian.Uint64(b))
		if ok != wok || ok && got != want {
			t.Fatalf("hex8(%q) = %#x, %v; want %#x, %v", b, got, ok, want, wok)
		}
	}
	base := []byte("fF09aA5e")
	for i := range 8 {
		for c := range 256 {
			b := slices.Clone(base)
			b[i] = byte(c)
			check(b)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const digits = "0123456789abcdefABCDEF"
	for range 100000 {
		var b [8]byte
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = byte(rng.IntN(256))
			} else {
				b[i] = digits[rng.IntN(len(digits))]
			}
		}
		check(b[:])
	}
}

// TestNameEnd checks nameEnd against a byte loop, for every length up to
// 40 with a space or tab at every position, or none.
func TestNameEnd(t *testing.T) {
	slow := func(b []byte) int {
		i := 0
		for i < len(b) && !isSpace(b[i]) {
			i++
		}
		return i
	}
	for n := range 41 {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc_\x01\x08\x1f!~\x7f\xff"[i%11]
		}
		if got, want := nameEnd(b), slow(b); got != want {
			t.Fatalf("nameEnd(%q) = %d, want %d", b, got, want)
		}
		for p := range n {
			for _, c := range []byte{' ', '\t'} {
				c2 := slices.Clone(b)
				c2[p] = c
				if p+1 < n {
					c2[p+1] = ' ' // a second one after the first
				}
				if got, want := nameEnd(c2), slow(c2); got != want {
					t.Fatalf("nameEnd(%q) = %d, want %d", c2, got, want)
				}
			}
		}
	}
}

// TestKernelLine checks the one-pass line parser against the general path
// (trim, then splitFast or splitLine) on lines the kernel writes and on
// near misses: every line it takes, the general path splits the same way,
// and it leaves alone what the general path must judge (modules, spaces,
// carriage returns, bad digits, names too long, lines cut by the chunk).
func TestKernelLine(t *testing.T) {
	const addr = "ffffffff81000000"
	lines := []string{
		addr + " T _stext\n", addr + " t a\n", addr + " t ab\n", addr + " t abcdefg\n",
		addr + " t abcdefgh\n", addr + " t abcdefghi\n", addr + " t __pfx_do_sys_open\n",
		addr + " t f\t[mod]\n", addr + " t f \n", addr + " t f\r\n", addr + " t  f\n",
		addr + "  t f\n", addr + " \nt f\n", addr + " \tf\n", addr + " t \n", addr + " t\n",
		"ffffffff8100000g t f\n", "ffffffff8100000 t f\n", "Ffffffff81000000 t f\n",
		addr + " t " + strings.Repeat("n", MaxNameLen) + "\n",
		addr + " t " + strings.Repeat("n", MaxNameLen+1) + "\n",
		addr + " t name", addr + " t name_without_a_newline_at_all",
		addr + " t a b\n", addr + " t a\tb\n", addr + " t \xff\x80\n", addr + " t a\x01b\n",
		"FFFFFFFF81000000 t f\n", "ffffffffffffffff t f\n", "0000000000000000 t f\n",
	}
	for _, l := range lines {
		for cut := len(l); cut >= len(l)-3 && cut > 0; cut-- {
			c := []byte(l[:cut])
			a, typ, name, n := kernelLine(c)
			if n == 0 {
				continue
			}
			line := c[:n-1]
			if n > len(c) || c[n-1] != '\n' || bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("kernelLine(%q) took %d bytes", c, n)
			}
			p := newParser(false)
			trimmed := line
			for len(trimmed) > 0 && (isSpace(trimmed[len(trimmed)-1]) || trimmed[len(trimmed)-1] == '\r') {
				trimmed = trimmed[:len(trimmed)-1]
			}
			wa, wt, wn, wm, ok := p.splitFast(trimmed)
			if !ok {
				var msg string
				if wa, wt, wn, wm, msg = splitLine(trimmed); msg != "" {
					t.Fatalf("kernelLine(%q) took a line the general path rejects: %s", c, msg)
				}
			}
			if a != wa || typ != wt || string(name) != string(wn) || wm != nil {
				t.Fatalf("kernelLine(%q) = %#x %c %q, general path %#x %c %q [%s]", c, a, typ, name, wa, wt, wn, wm)
			}
		}
	}
	// The kernel's own lines must take the fast path.
	for _, l := range lines[:7] {
		if _, _, _, n := kernelLine([]byte(l + addr)); n != len(l) {
			t.Fatalf("kernelLine(%q) = %d, want %d", l, n, len(l))
		}
	}
}

// TestMaxModules: a module past MaxModules is refused where it appears,
// before its table costs anything (issue 37: a million modules of one
// symbol each, 63 MB of text, took 2.6 GB), and MaxModules are accepted.
func TestMaxModules(t *testing.T) {
	if testing.Short() {
		t.Skip("65,537 modules: not with -short")
	}
	var in bytes.Buffer
	in.WriteString("ffffffff81000000 T _stext\n")
	for i := range MaxModules + 1 {
		fmt.Fprintf(&in, "%016x t f\t[m%d]\n", 0xffffffffc0000000+uint64(i)<<12, i)
	}
	var pe *ParseError
	if _, err := Parse(bytes.NewReader(in.Bytes()), Options{}); !errors.As(err, &pe) || pe.Line != MaxModules+2 ||
		!strings.Contains(err.Error(), "more than 65536 modules") {
		t.Errorf("%d modules: %v, want a ParseError on line %d", MaxModules+1, err, MaxModules+2)
	}
	last := bytes.LastIndexByte(in.Bytes()[:in.Len()-1], '\n')
	s := mustParse(t, in.Bytes()[:last+1], nil)
	if n := len(s.Modules()); n != MaxModules+1 {
		t.Errorf("%d modules and vmlinux, want %d", n, MaxModules+1)
	}
}

// TestModulesInterleaved: the modules' lines wait in one log until the
// tables are made (modLog); a module listed in several places, between
// other modules' and vmlinux's lines, gets the table its lines make when
// they are listed together in the same order: __pfx_ symbols hidden
// across the gaps, data symbols ending its runs of text, its symbols
// resorted when out of order.
func TestModulesInterleaved(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	type line struct {
		mod  int // -1: vmlinux
		text string
	}
	var lines []line
	next := map[int]uint64{}
	for i := range 3000 {
		mod := r.IntN(5) - 1
		a := next[mod]
		if a == 0 {
			a = 0xffffffffc0000000 + uint64(mod+1)<<24
		}
		if r.IntN(20) == 0 { // out of order
			a -= 64
		}
		typ, name := "t", fmt.Sprintf("f%d", i)
		switch r.IntN(6) {
		case 0:
			typ = "d"
		case 1:
			name = pfxPrefix + name
			lines = append(lines, line{mod, fmt.Sprintf("%016x t %s", a, name)})
			a, name = a+pfxGap, name[len(pfxPrefix):]
		}
		lines = append(lines, line{mod, fmt.Sprintf("%016x %s %s", a, typ, name)})
		next[mod] = a + 32
	}
	text := func(ls []line) []byte {
		var b bytes.Buffer
		for _, l := range ls {
			b.WriteString(l.text)
			if l.mod >= 0 {
				fmt.Fprintf(&b, "\t[m%d]", l.mod)
			}
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	grouped := slices.Clone(lines)
	slices.SortStableFunc(grouped, func(x, y line) int { return x.mod - y.mod })
	for _, data := range []bool{false, true} {
		opts := &Options{Data: data}
		got, want := mustParse(t, text(lines), opts), mustParse(t, text(grouped), opts)
		if diff := cmp.Diff(slices.Collect(want.All()), slices.Collect(got.All())); diff != "" {
			t.Errorf("data %v: symbols (-grouped +interleaved):\n%s", data, diff)
		}
		if diff := cmp.Diff(want.Modules(), got.Modules()); diff != "" {
			t.Errorf("data %v: modules (-grouped +interleaved):\n%s", data, diff)
		}
		for i := range 2000 {
			a := 0xffffffffc0000000 + uint64(i%5)<<24 + uint64(r.IntN(700*32))
			ws, werr := want.Lookup(a)
			gs, gerr := got.Lookup(a)
			if ws != gs || (werr == nil) != (gerr == nil) {
				t.Fatalf("data %v: Lookup(%#x) = %+v, %v; grouped %+v, %v", data, a, gs, gerr, ws, werr)
			}
		}
	}
}
