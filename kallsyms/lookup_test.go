package kallsyms

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lookupCase is one input checked against the reference implementation.
type lookupCase struct {
	name  string
	file  string
	data  bool
	sysfs bool
	// every is the share of symbols whose boundaries checkLookups checks,
	// and divides its random addresses and checkNames' sample: all of
	// them in the two main cases, every 4th in their variants, which
	// differ in which symbols and modules they hold, not in how a
	// boundary is looked up.
	every int
}

var lookupCases = []lookupCase{
	{name: "host", file: hostFixture, every: 1},
	{name: "host-data", file: hostFixture, data: true, every: 4},
	{name: "synthetic", file: synthFixture, sysfs: true, every: 1},
	{name: "synthetic-data", file: synthFixture, data: true, sysfs: true, every: 4},
	{name: "synthetic-nosysfs", file: synthFixture, every: 4},
}

// TestLookupMatchesReference checks every symbol start, the bytes around
// it, and random addresses against the reference implementation, and that
// All lists exactly the reference's symbols.
func TestLookupMatchesReference(t *testing.T) {
	// The sysfs tree is extracted once (thousands of small files).
	sysfs := sysfsInfos(t)
	if len(sysfs) != 150 {
		t.Fatalf("ReadModules: %d modules, want 150", len(sysfs))
	}
	for _, tc := range lookupCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text := readFixture(t, tc.file)
			var infos []ModuleInfo
			if tc.sysfs {
				infos = sysfs
			}
			snap := mustParse(t, text, &Options{Data: tc.data, Modules: infos})
			r := newRef(t, text, tc.data, infos)
			checkAll(t, snap, r)
			checkLookups(t, snap, r, tc.every)
			checkNames(t, snap, r, tc.every)
		})
	}
}

func checkAll(t *testing.T, snap *Snapshot, r *ref) {
	t.Helper()
	want := r.all()
	got := make([]Symbol, 0, len(want))
	for s := range snap.All() {
		got = append(got, s)
	}
	if len(got) != len(want) {
		t.Errorf("All: %d symbols, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if want[i] != got[i] {
			t.Fatalf("All()[%d] mismatch (-want +got):\n%s", i, cmp.Diff(want[i], got[i]))
		}
	}
	if st := snap.Stats(); st.Symbols != len(want) {
		t.Errorf("Stats().Symbols = %d, want %d", st.Symbols, len(want))
	}
}

func checkLookups(t *testing.T, snap *Snapshot, r *ref, every int) {
	t.Helper()
	var addrs []uint64
	lo, hi := ^uint64(0), uint64(0)
	// The first byte of every symbol (or of every "every"th) and the byte
	// before it (the end of the previous symbol); inside symbols, every
	// 8th of those and the random addresses below, which take the same
	// path.
	for i, s := range r.all() {
		lo, hi = min(lo, s.Addr), max(hi, s.Addr)
		if i%every != 0 {
			continue
		}
		addrs = append(addrs, s.Addr, s.Addr-1)
		if i%(8*every) == 0 {
			addrs = append(addrs, s.Addr+1, s.Addr+15)
		}
	}
	for _, m := range r.mods {
		addrs = append(addrs, m.start, m.start-1, m.end, m.end-1)
		for _, a := range m.stops {
			addrs = append(addrs, a, a-1, a+1)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20_000 / every {
		addrs = append(addrs, lo-0x1000+rng.Uint64N(hi-lo+0x2000))
	}
	for range 1000 / every {
		addrs = append(addrs, rng.Uint64())
	}
	pfx, clones, outside, fails := 0, 0, 0, 0
	for _, a := range addrs {
		want, ok, notText := r.lookup(a)
		got, err := snap.Lookup(a)
		if notText {
			outside++
			if !errors.Is(err, ErrNotText) {
				t.Errorf("Lookup(%#x) = %+v, %v; want ErrNotText", a, got, err)
				fails++
			}
		} else if !ok {
			if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotText) {
				t.Errorf("Lookup(%#x) = %+v, %v; want ErrNotFound", a, got, err)
				fails++
			}
		} else if err != nil || want != got {
			t.Errorf("Lookup(%#x): err %v, mismatch (-want +got):\n%s", a, err, cmp.Diff(want, got))
			fails++
		}
		// LookupAppend overwrites every field, and leaves Name empty.
		app := Symbol{Name: "stale", Module: "stale", Addr: 1, Offset: 2, Type: '?'}
		name, aerr := snap.LookupAppend([]byte("x"), &app, a)
		if app.Name != "" {
			t.Errorf("LookupAppend(%#x) set Name %q", a, app.Name)
		}
		// Lookup wraps LookupAppend's sentinel with the address.
		if app.Name = string(name[1:]); (aerr == nil) != (err == nil) || (aerr != nil && !errors.Is(err, aerr)) || app != got {
			t.Errorf("LookupAppend(%#x) = %+v, %v; Lookup %+v, %v", a, app, aerr, got, err)
			fails++
		}
		if fails > 10 {
			t.Fatal("too many failures")
		}
		if len(got.Name) > 6 && got.Name[:6] == pfxPrefix {
			pfx++
		}
		if got.Module != Vmlinux && len(got.Name) > 5 && got.Name[len(got.Name)-5:] == "_init" {
			clones++
		}
	}
	t.Logf("%d lookups, %d in __pfx_ symbols, %d in init clones, %d outside text", len(addrs), pfx, clones, outside)
	if pfx == 0 {
		t.Error("no lookup hit a __pfx_ symbol")
	}
}

func checkNames(t *testing.T, snap *Snapshot, r *ref, every int) {
	t.Helper()
	all := r.all()
	stride := 2003 * every
	type key struct{ name, mod string }
	// LookupName scans a module's table: a sample of the names keeps this
	// quick. byName holds every symbol of each sampled name and module.
	byName := map[key][]Symbol{}
	for i := 0; i < len(all); i += stride {
		byName[key{all[i].Name, all[i].Module}] = nil
	}
	for _, s := range all {
		if v, ok := byName[key{s.Name, s.Module}]; ok {
			byName[key{s.Name, s.Module}] = append(v, s)
		}
	}
	for i := 0; i < len(all); i += stride {
		name, mod := all[i].Name, all[i].Module
		want := byName[key{name, mod}]
		got, err := snap.LookupName(name, mod)
		if err != nil {
			t.Fatalf("LookupName(%q, %q): %v", name, mod, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("LookupName(%q, %q) mismatch (-want +got):\n%s", name, mod, diff)
		}
	}
	if _, err := snap.LookupName("no_such_symbol_xyz", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("LookupName(missing): %v, want ErrNotFound", err)
	}
}

// TestLookupLayouts checks generated tables against the reference
// implementation where the block layout has edge cases: buckets that hold
// many blocks and blocks that span many buckets, a module just below the
// 2 GiB span that narrow tables hold and one above it, and blocks with
// long and escaped names.
func TestLookupLayouts(t *testing.T) {
	var b strings.Builder
	sym := func(a uint64, typ byte, name, mod string) {
		fmt.Fprintf(&b, "%016x %c %s", a, typ, name)
		if mod != "" {
			fmt.Fprintf(&b, "\t[%s]", mod)
		}
		b.WriteByte('\n')
	}
	rng := rand.New(rand.NewPCG(3, 4))
	a := uint64(0xffffffff81000000)
	for i := range 5000 {
		switch gap := rng.IntN(100); {
		case gap < 60: // dense: functions 32 bytes apart
			a += 32
		case gap < 95:
			a += uint64(rng.IntN(4096))
		default: // sparse: many buckets without a block start
			a += uint64(rng.IntN(1 << 22))
		}
		name := fmt.Sprintf("func_%d", i)
		switch {
		case i%97 == 0:
			name += strings.Repeat("_long", 200)
		case i%89 == 0:
			name += "_\xc3\xa9t\xe9"
		}
		if i%3 != 0 {
			sym(a-pfxGap, 't', pfxPrefix+name, "")
		}
		sym(a, 't', name, "")
		// Ends of text (see TestLookupOutsideText): data inside a run and
		// at a text address, _etext and _einittext.
		switch {
		case i%41 == 0:
			sym(a+8, 'd', fmt.Sprintf("data_%d", i), "")
		case i%53 == 0:
			sym(a, 'D', fmt.Sprintf("same_%d", i), "")
		case i == 2500:
			sym(a+1, 'T', "_etext", "")
			sym(a+2, 'R', "__start_rodata", "")
		case i == 4000:
			sym(a+2, 'T', "_einittext", "")
		}
	}
	for _, m := range []struct {
		name string
		span uint64
	}{{"below2g", padAddr - 1}, {"above2g", padAddr + 1}, {"above4g", 1<<32 + 64}} {
		base := uint64(0xffff900000000000) + uint64(len(m.name))<<40
		for i := range 40 {
			off := m.span / 39 * uint64(i)
			if i == 39 {
				off = m.span
			}
			sym(base+off, 't', fmt.Sprintf("%s_%d", m.name, i), m.name)
			if i%7 == 0 {
				sym(base+off+1, 'd', fmt.Sprintf("%s_data_%d", m.name, i), m.name)
			}
		}
	}
	// A module with a bucket index: blocks that start in their bucket (the
	// index's split), buckets where several do (dense), buckets where
	// none does, and addresses above the last bucket.
	a = 0xffffffffc0000000
	for i := range 3000 {
		switch gap := rng.IntN(100); {
		case gap < 70:
			a += 16 + uint64(rng.IntN(64))
		case gap < 97:
			a += uint64(rng.IntN(2048))
		default:
			a += uint64(rng.IntN(1 << 16))
		}
		name := fmt.Sprintf("idx_%d", i)
		if i%2 == 0 {
			sym(a-pfxGap, 't', pfxPrefix+name, "indexed")
		}
		sym(a, 't', name, "indexed")
		if i%37 == 0 {
			sym(a, 't', name+"_alias", "indexed")
		}
		if i%29 == 0 {
			sym(a+5, 'b', name+"_data", "indexed")
		}
	}
	text := []byte(b.String())
	snap := mustParse(t, text, nil)
	i, _ := snap.module("indexed")
	idx := snap.mods[i].tab
	var dense, split int
	for _, e := range idx.index {
		if e&denseBit != 0 {
			dense++
		} else if e>>splitOff&noSplit != noSplit {
			split++
		}
	}
	if dense == 0 || split == 0 || split+dense == len(idx.index) {
		t.Fatalf("module indexed: %d buckets, %d dense, %d split: the index's cases are not all here", len(idx.index), dense, split)
	}
	// Blocks cut short by a wide gap, and blocks whose first entry has the
	// address of the previous block's last.
	var short, dup int
	for b := range idx.nblocks() - 1 {
		if idx.blockLen(b) < markStride {
			short++
		}
		if idx.hdr(b).flags()&dupFlag != 0 {
			dup++
		}
	}
	if short == 0 || dup == 0 {
		t.Fatalf("module indexed: %d short blocks, %d with a shared first address: the layout's cases are not all here", short, dup)
	}
	r := newRef(t, text, false, nil)
	checkAll(t, snap, r)
	checkLookups(t, snap, r, 1)
	checkNames(t, snap, r, 1)
}

// TestLookupOutsideText: without Options.Data, an address past a run of
// text symbols (at or after _etext, or at and after the first data symbol
// above a text symbol) returns ErrNotText, never the text symbol below it
// (_etext+0x1f6678 for __start_rodata); with Data it names the data
// symbol.
func TestLookupOutsideText(t *testing.T) {
	const text = `ffffffff81000000 T _stext
ffffffff81000100 t f
ffffffff81000200 T _etext
ffffffff82000000 D __start_rodata
ffffffff82000040 D __stop_rodata
ffffffff83000000 T _sinittext
ffffffff83000000 B __init_begin
ffffffff83000010 t __pfx_init_f
ffffffff83000020 t init_f
ffffffff83000100 T _einittext
ffffffff83000200 D __start_mcount_loc
ffffffffc0000000 t m_f	[m]
ffffffffc0002000 d m_data	[m]
ffffffffc0000100 t m_g	[m]
ffffffffc0000080 r m_tail	[m]
`
	type result struct {
		Name   string
		Offset uint64
		Err    error
	}
	tests := []struct {
		addr       uint64
		text, data result
	}{
		{0xffffffff81000110, result{"f", 0x10, nil}, result{"f", 0x10, nil}},
		{0xffffffff81000200, result{Err: ErrNotText}, result{"_etext", 0, nil}},
		{0xffffffff81000208, result{Err: ErrNotText}, result{"_etext", 8, nil}},
		{0xffffffff82000010, result{Err: ErrNotText}, result{"__start_rodata", 0x10, nil}},
		{0xffffffff82000050, result{Err: ErrNotText}, result{"__stop_rodata", 0x10, nil}},
		{0xffffffff83000000, result{"_sinittext", 0, nil}, result{"_sinittext", 0, nil}},
		{0xffffffff83000018, result{"__pfx_init_f", 8, nil}, result{"__pfx_init_f", 8, nil}},
		{0xffffffff830000ff, result{"init_f", 0xdf, nil}, result{"init_f", 0xdf, nil}},
		{0xffffffff83000180, result{Err: ErrNotText}, result{"_einittext", 0x80, nil}},
		{0xffffffff83000208, result{Err: ErrNotText}, result{"__start_mcount_loc", 8, nil}},
		{0xffffffffc0000010, result{"m_f", 0x10, nil}, result{"m_f", 0x10, nil}},
		{0xffffffffc0000090, result{Err: ErrNotText}, result{"m_tail", 0x10, nil}},
		{0xffffffffc0000110, result{"m_g", 0x10, nil}, result{"m_g", 0x10, nil}},
		{0xffffffffc0000f00, result{"m_g", 0xe00, nil}, result{"m_g", 0xe00, nil}},
		{0xffffffffc0002008, result{Err: ErrNotFound}, result{"m_data", 8, nil}},
	}
	for _, data := range []bool{false, true} {
		snap := mustParse(t, []byte(text), &Options{Data: data})
		for _, tc := range tests {
			want := tc.text
			if data {
				want = tc.data
			}
			sym, err := snap.Lookup(tc.addr)
			got := result{sym.Name, sym.Offset, err}
			switch {
			case errors.Is(err, ErrNotText):
				got = result{Err: ErrNotText}
			case errors.Is(err, ErrNotFound):
				got = result{Err: ErrNotFound}
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y error) bool { return x == y })); diff != "" {
				t.Errorf("data %v: Lookup(%#x) mismatch (-want +got):\n%s", data, tc.addr, diff)
			}
		}
		// The ends are no symbols of their own: _etext stays listed, the
		// data symbols do not appear without Data.
		var names []string
		for s := range snap.All() {
			names = append(names, s.Name)
		}
		if want := 15; !data && (len(names) != 9 || snap.Stats().Symbols != 9) || data && len(names) != want {
			t.Errorf("data %v: All lists %q, Stats %+v", data, names, snap.Stats())
		}
		if syms, err := snap.LookupName("_etext", ""); err != nil || len(syms) != 1 {
			t.Errorf("data %v: LookupName(_etext) = %v, %v", data, syms, err)
		}
	}
}
