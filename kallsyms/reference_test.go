package kallsyms

import (
	"bufio"
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// ref is a straightforward reference implementation of the package's lookup
// rules: every symbol kept as a struct with its full name, per module in a
// stably sorted slice, no compression, no hidden __pfx_ symbols, no index.
type ref struct {
	mods []*refModule // vmlinux first, then by name
	data bool
	syms []Symbol // all's result, made once
}

func hasInfo(infos []ModuleInfo, name string) bool {
	for _, info := range infos {
		if info.Name == name {
			return true
		}
	}
	return false
}

type refModule struct {
	name       string
	syms       []Symbol
	stops      []uint64 // non-text addresses, without data
	start, end uint64
	hasAddr    bool
}

func newRef(tb testing.TB, text []byte, data bool, infos []ModuleInfo) *ref {
	tb.Helper()
	byName := map[string]*refModule{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			tb.Fatal(err)
		}
		mod := Vmlinux
		if len(f) > 3 {
			mod = strings.Trim(f[3], "[]")
		}
		m := byName[mod]
		if m == nil {
			m = &refModule{name: mod}
			byName[mod] = m
		}
		if !data && !strings.ContainsAny(f[1], "tTwW") {
			m.stops = append(m.stops, addr)
			continue
		}
		s := Symbol{Name: f[2], Module: mod, Addr: addr}
		if data {
			s.Type = f[1][0]
		}
		m.syms = append(m.syms, s)
	}
	for _, info := range infos {
		if byName[info.Name] == nil {
			byName[info.Name] = &refModule{name: info.Name}
		}
	}
	r := &ref{data: data}
	for _, m := range byName {
		if len(m.syms) == 0 && !hasInfo(infos, m.name) {
			continue // only data symbols, without data
		}
		sort.SliceStable(m.syms, func(i, j int) bool { return m.syms[i].Addr < m.syms[j].Addr })
		slices.Sort(m.stops)
		if len(m.syms) > 0 {
			m.start, m.end, m.hasAddr = m.syms[0].Addr, (m.syms[len(m.syms)-1].Addr/4096+1)*4096, true
		}
		for _, info := range infos {
			if info.Name == m.name && info.Text != 0 && info.Size != 0 {
				if !m.hasAddr || info.Text < m.start {
					m.start = info.Text
				}
				if !m.hasAddr || info.Text+info.Size > m.end {
					m.end = info.Text + info.Size
				}
				m.hasAddr = true
			}
		}
		r.mods = append(r.mods, m)
	}
	sort.Slice(r.mods, func(i, j int) bool {
		a, b := r.mods[i].name, r.mods[j].name
		if (a == Vmlinux) != (b == Vmlinux) {
			return a == Vmlinux
		}
		return a < b
	})
	return r
}

// lookup applies the documented rule: among the modules whose range holds
// a, the symbol with the greatest start <= a (the first of equal starts);
// a module with no such symbol counts as starting at its range start.
// Without data, a text symbol ends at the first non-text address above it,
// and vmlinux's _etext and _einittext end text: an address from there to
// the next text symbol is outside text (notText), at the nearest start.
func (r *ref) lookup(a uint64) (sym Symbol, found, notText bool) {
	var best Symbol
	for _, m := range r.mods {
		if !m.hasAddr || a < m.start || a >= m.end {
			continue
		}
		cand, out := Symbol{Module: m.name, Addr: m.start}, false
		i := sort.Search(len(m.syms), func(i int) bool { return m.syms[i].Addr > a }) - 1
		if i >= 0 {
			for i > 0 && m.syms[i-1].Addr == m.syms[i].Addr {
				i--
			}
			cand = m.syms[i]
			if !r.data {
				cand, out = m.textEnd(cand, a)
			}
		}
		if !found || cand.Addr > best.Addr {
			best, found, notText = cand, true, out
		}
	}
	if notText {
		return Symbol{}, false, true
	}
	best.Offset = a - best.Addr
	return best, found, false
}

// textEnd returns, for the text symbol sym with the greatest start <= a,
// the end of text at or below a that ends sym's run, if any (out set, at
// its address), or sym.
func (m *refModule) textEnd(sym Symbol, a uint64) (Symbol, bool) {
	if m.name == Vmlinux && (sym.Name == "_etext" || sym.Name == "_einittext") {
		return Symbol{Addr: sym.Addr}, true
	}
	// The first non-text address above sym (stops is sorted), if it is
	// at or below a.
	i := sort.Search(len(m.stops), func(i int) bool { return m.stops[i] > sym.Addr })
	if i == len(m.stops) || m.stops[i] > a {
		return sym, false
	}
	return Symbol{Addr: m.stops[i]}, true
}

// all lists every symbol in the order Snapshot.All promises.
func (r *ref) all() []Symbol {
	if r.syms == nil {
		n := 0
		for _, m := range r.mods {
			n += len(m.syms)
		}
		r.syms = make([]Symbol, 0, n)
		for _, m := range r.mods {
			r.syms = append(r.syms, m.syms...)
		}
	}
	return r.syms
}
