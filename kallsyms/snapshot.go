package kallsyms

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Snapshot is an immutable set of kernel symbols: one table per module,
// with the module metadata read from sysfs. It is safe for concurrent use by
// any number of goroutines, and stays valid (and unchanged) after the
// live.Symbolizer that produced it has moved on to a newer one.
//
// The zero Snapshot is empty: every lookup returns ErrNotFound.
type Snapshot struct {
	mods   []modEntry // vmlinux first, then by name (modOrder)
	infos  []ModuleInfo
	segs   []segment // address segments, sorted by start
	cands  []int32   // candidate modules of each segment
	linear bool      // too many overlapping ranges for segments: scan mods
	// [hotStart, hotStart+hotLen) is the widest segment with one module,
	// hotMod (hotLen is 0 if none): resolve tries it before searching, as
	// it is usually the kernel's text.
	hotStart, hotLen uint64
	hot              *modEntry // in mods
	names            *codec    // names(), kept so that lookups skip its once-check
	data             bool
	load             time.Duration
}

type modEntry struct {
	tab     *table
	info    *ModuleInfo // in Snapshot.infos; nil without one
	hasAddr bool        // start and end are meaningful
	start   uint64
	end     uint64 // exclusive; 0 means 2^64
}

// segment covers [start, next segment's start); cands[off:off+n] are the
// modules whose ranges contain it, in module order.
type segment struct {
	start  uint64
	off, n uint32
}

// Symbol is one kernel symbol, or the result of an address lookup.
type Symbol struct {
	// Name is the symbol name; it is empty when a lookup hit a module
	// (known from sysfs) before its first loaded symbol.
	Name string
	// Module is the module name, Vmlinux for the kernel image, or a
	// pseudo-module such as "bpf".
	Module string
	// Addr is the symbol's start address (the module's .text address for a
	// hit without a name).
	Addr uint64
	// Offset is the looked-up address minus Addr; 0 outside lookups.
	Offset uint64
	// Type is the kallsyms type letter ('t', 'T', 'd', ...) when the
	// snapshot was loaded with Options.Data, else 0.
	Type byte
}

// newSnapshot assembles a snapshot from module tables, of distinct names,
// and sysfs metadata (the last of several of one name wins).
func newSnapshot(tabs []*table, infos []ModuleInfo, data bool) *Snapshot {
	s := &Snapshot{data: data, names: names(), mods: make([]modEntry, len(tabs), len(tabs)+len(infos))}
	for i, t := range tabs {
		s.mods[i].tab = t
	}
	s.sortMods()
	s.infos = slices.Clone(infos)
	slices.SortStableFunc(s.infos, func(a, b ModuleInfo) int { return strings.Compare(a.Name, b.Name) })
	for k := range s.infos {
		info := &s.infos[k]
		if k+1 < len(s.infos) && s.infos[k+1].Name == info.Name {
			continue
		}
		if i, ok := slices.BinarySearchFunc(s.mods[:len(tabs)], info.Name, byModName); ok {
			s.mods[i].info = info
		} else {
			s.mods = append(s.mods, modEntry{tab: &table{name: info.Name}, info: info})
		}
	}
	s.sortMods()
	for i := range s.mods {
		s.mods[i].setRange()
	}
	s.buildSegments()
	return s
}

// sortMods sorts the modules in modOrder.
func (s *Snapshot) sortMods() {
	slices.SortFunc(s.mods, func(a, b modEntry) int { return modOrder(a.tab.name, b.tab.name) })
}

// modOrder orders module names: vmlinux first, then by name.
func modOrder(a, b string) int {
	if (a == Vmlinux) != (b == Vmlinux) {
		if a == Vmlinux {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func byModName(m modEntry, name string) int { return modOrder(m.tab.name, name) }

// module returns the index of the module called name in mods.
func (s *Snapshot) module(name string) (int, bool) {
	return slices.BinarySearchFunc(s.mods, name, byModName)
}

// setRange computes the module's address range: from the lower of its
// .text address and its first symbol, to the highest of .text+coresize,
// the end of the page holding its last symbol, and that symbol's end when
// its length is known.
func (m *modEntry) setRange() {
	first, ok := m.tab.start()
	if ok {
		last, _ := m.tab.last()
		m.start, m.end, m.hasAddr = first, pageEnd(last), true
		if m.end != 0 && m.tab.end() > m.end { // a last symbol of known length, past its page
			m.end = m.tab.end()
		}
	}
	if m.info != nil && m.info.Text != 0 && m.info.Size != 0 {
		end := m.info.Text + m.info.Size
		if end < m.info.Text {
			end = 0 // wrapped: up to the top of the address space
		}
		if !m.hasAddr || m.info.Text < m.start {
			m.start = m.info.Text
		}
		if !m.hasAddr || end == 0 || (m.end != 0 && end > m.end) {
			m.end = end
		}
		m.hasAddr = true
	}
}

// pageEnd returns the end of the 4 KiB page holding a (0 for the last page
// of the address space).
func pageEnd(a uint64) uint64 { return a | 0xfff + 1 }

// contains reports whether a lies in the module's address range.
func (m *modEntry) contains(a uint64) bool {
	return m.hasAddr && a >= m.start && (m.end == 0 || a < m.end)
}

// best returns the symbol of module m with the greatest start <= a, for an
// address a inside the module's range.
func (m *modEntry) best(a uint64) hit {
	if h, ok := m.tab.find(a); ok {
		return h
	}
	return hit{idx: beforeFirst, start: m.start}
}

// Lookup returns the symbol containing addr, with addr's offset from the
// symbol's start. A symbol ends where the next symbol of its module starts;
// the last one ends at the module's end (see Module). Without
// Options.Data, a text symbol also ends where its run of text does: at
// vmlinux's _etext and _einittext, and at the first data symbol above it;
// an address from there to the next text symbol returns ErrNotText (which
// wraps ErrNotFound), never the text symbol below it. When module ranges
// overlap, the symbol (or end of text) with the nearest start wins, and a
// symbol wins over an end of text at the same address. An
// address inside a module known from sysfs but before its first loaded
// symbol returns a Symbol with only Module, Addr (the module's start) and
// Offset set. An address outside every module returns ErrNotFound.
// Lookup's errors name the address and wrap those sentinels (test them
// with errors.Is); LookupAppend returns the sentinels themselves, so that
// a miss costs no allocation.
//
// Names are stored compressed, so Lookup allocates the returned Name (one
// allocation of its exact size); LookupAppend, the fast path for callers
// that resolve many addresses, avoids that.
func (s *Snapshot) Lookup(addr uint64) (sym Symbol, err error) {
	var buf [512]byte // on the stack: the name's only allocation is its string
	name, err := s.LookupAppend(buf[:0], &sym, addr)
	if err != nil {
		// The sentinel alone would not say which address missed.
		return sym, pkgerr.Errorf("kallsyms: address %#x: %w", addr, err)
	}
	sym.Name = string(name)
	return sym, nil
}

// LookupAppend is Lookup without allocation, the fast path for profilers
// that resolve many addresses into a reused buffer: it sets *sym as Lookup
// would, except that Name is left empty, and appends the symbol's name to
// dst, returning the extended buffer. On error *sym is zeroed and dst is
// returned unchanged. (Filling the caller's Symbol instead of returning
// one spares the caller a copy of the struct through memory, which stalls
// on the stores that produced it: a few ns of a lookup.)
func (s *Snapshot) LookupAppend(dst []byte, sym *Symbol, addr uint64) ([]byte, error) {
	var t *table
	var h hit
	if addr-s.hotStart < s.hotLen { // resolve's first case, inlined
		t, h = s.hot.tab, s.hot.best(addr)
	} else if mod, hr := s.resolve(addr); mod >= 0 {
		t, h = s.mods[mod].tab, hr
	} else {
		*sym = Symbol{}
		return dst, ErrNotFound
	}
	if h.idx < 0 {
		if h.idx == outsideText {
			*sym = Symbol{}
			return dst, ErrNotText
		}
		s.fill(sym, t, h, addr)
		return dst, nil
	}
	s.fill(sym, t, h, addr)
	if h.pfx {
		dst = append(dst, pfxPrefix...)
	}
	return s.names.appendDecoded(dst, t.encName(h)), nil
}

// fill sets the fields of sym other than Name for the hit h of table t,
// and empties Name. It writes them in place: building a Symbol and copying
// it costs more than the rest of a lookup (the copy's 16-byte loads stall
// on the 8-byte stores that built it).
func (s *Snapshot) fill(sym *Symbol, t *table, h hit, addr uint64) {
	sym.Name, sym.Module, sym.Addr, sym.Offset, sym.Type = "", t.name, h.start, addr-h.start, t.typeOf(h)
}

// resolve finds the module index and symbol for addr; mod is -1 when no
// module range holds addr. Its callers try the hot segment first (see
// Snapshot.hotStart); resolve answers for every address all the same.
func (s *Snapshot) resolve(addr uint64) (mod int, best hit) {
	mod = -1
	var cands []int32
	if !s.linear {
		k := s.segment(addr)
		if k < 0 {
			return -1, hit{}
		}
		seg := s.segs[k]
		cands = s.cands[seg.off : seg.off+seg.n]
		if len(cands) == 1 { // the common case: one module here
			i := int(cands[0])
			if m := &s.mods[i]; m.contains(addr) {
				return i, m.best(addr)
			}
			return -1, hit{}
		}
	}
	n := len(cands)
	if s.linear {
		n = len(s.mods)
	}
	for c := range n {
		i := c
		if !s.linear {
			i = int(cands[c])
		}
		m := &s.mods[i]
		if !m.contains(addr) {
			continue
		}
		if h := m.best(addr); mod < 0 || h.start > best.start || h.start == best.start && best.idx == outsideText && h.idx != outsideText {
			best, mod = h, i
		}
	}
	return mod, best
}

// segment returns the index of the segment containing a, or -1.
func (s *Snapshot) segment(a uint64) int {
	lo, hi := 0, len(s.segs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.segs[m].start <= a {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// buildSegments splits the address space at every module range boundary
// and records which modules cover each piece. If overlapping ranges would
// make that table large (past 16 candidates a module, 64 bytes: a
// kernel's modules do not overlap), lookups scan all modules instead.
func (s *Snapshot) buildSegments() {
	bs := make([]bound, 0, 2*len(s.mods))
	for i, m := range s.mods {
		if m.hasAddr {
			bs = append(bs, bound{m.start, int32(i), true})
			if m.end != 0 {
				bs = append(bs, bound{m.end, int32(i), false})
			}
		}
	}
	slices.SortFunc(bs, func(a, b bound) int { return cmp.Compare(a.at, b.at) })
	limit := 16*len(s.mods) + 1<<16
	nc, ns := candidates(bs)
	if nc > limit {
		s.linear = true // known before the table is made
		return
	}
	s.segs, s.cands = make([]segment, 0, ns), make([]int32, 0, nc)
	var active []int32
	for i := 0; i < len(bs); {
		at := bs[i].at
		for ; i < len(bs) && bs[i].at == at; i++ {
			j, found := slices.BinarySearch(active, bs[i].mod)
			if bs[i].open && !found {
				active = slices.Insert(active, j, bs[i].mod)
			} else if !bs[i].open && found {
				active = slices.Delete(active, j, j+1)
			}
		}
		s.segs = append(s.segs, segment{start: at, off: uint32(len(s.cands)), n: uint32(len(active))})
		s.cands = append(s.cands, active...)
	}
	for k := 0; k+1 < len(s.segs); k++ {
		if g := s.segs[k]; g.n == 1 && s.segs[k+1].start-g.start > s.hotLen {
			s.hotStart, s.hotLen, s.hot = g.start, s.segs[k+1].start-g.start, &s.mods[s.cands[g.off]]
		}
	}
}

// candidates returns the number of candidates buildSegments records for
// the bounds bs, sorted by address (at each address, the ranges open after
// its bounds: each module's range opens once, below where it closes), and
// the number of its segments (of distinct addresses).
func candidates(bs []bound) (total, segs int) {
	open := 0
	for i, b := range bs {
		if b.open {
			open++
		} else {
			open--
		}
		if i+1 == len(bs) || bs[i+1].at != b.at {
			total += open
			segs++
		}
	}
	return total, segs
}

// bound is where a module's range opens or closes (buildSegments).
type bound struct {
	at   uint64
	mod  int32
	open bool
}

// bytes returns the heap bytes the snapshot retains, its tables included.
func (s *Snapshot) bytes() int {
	n := int(unsafe.Sizeof(*s)) + cap(s.mods)*int(unsafe.Sizeof(modEntry{})) +
		cap(s.segs)*int(unsafe.Sizeof(segment{})) + 4*cap(s.cands) +
		cap(s.infos)*int(unsafe.Sizeof(ModuleInfo{}))
	for _, m := range s.mods {
		n += m.tab.bytes()
	}
	for _, info := range s.infos {
		n += len(info.Name) + len(info.BuildID) + len(info.State)
	}
	return n
}
