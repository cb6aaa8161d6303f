package kallsyms

import (
	"bytes"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"iter"
	"strings"
	"time"
)

// Module describes one module of a Snapshot.
type Module struct {
	// Name is the module name, or Vmlinux for the kernel image.
	Name string
	// Start and End bound the module's address range [Start, End): from
	// the lower of its .text address and its first symbol to the higher of
	// .text+coresize and the end of the 4 KiB page that holds its last
	// symbol (the size of that symbol is not known; in the BPF
	// pseudo-module that WithSymbols built it is, and End is at least
	// that symbol's end). End is 0 for a range
	// that reaches the top of the address space. Both are 0 for a module
	// with neither symbols nor a known address.
	Start, End uint64
	// Symbols is the number of symbols loaded for the module.
	Symbols int
	// BuildID is the module's GNU build ID from sysfs, or nil.
	BuildID []byte
	// State is the module's initstate from sysfs ("live", "coming",
	// "going"), or "" when sysfs had no entry for it.
	State string
	// Pseudo is set for kallsyms pseudo-modules that are not loadable
	// modules: "bpf" and the "__builtin__*" ones (ftrace, kprobes).
	Pseudo bool
}

// IsPseudoModule reports whether name is a kallsyms pseudo-module rather
// than a loadable module: "bpf" or a name starting with "__builtin__".
func IsPseudoModule(name string) bool {
	return name == "bpf" || strings.HasPrefix(name, "__builtin__")
}

func (m *modEntry) module() Module {
	mod := Module{
		Name:    m.tab.name,
		Start:   m.start,
		End:     m.end,
		Symbols: m.tab.symbols(),
		Pseudo:  IsPseudoModule(m.tab.name),
	}
	if m.info != nil {
		mod.BuildID = bytes.Clone(m.info.BuildID)
		mod.State = m.info.State
	}
	return mod
}

// Modules returns the snapshot's modules: vmlinux first, then the others by
// name. It returns an empty slice for an empty snapshot.
func (s *Snapshot) Modules() []Module {
	out := make([]Module, len(s.mods))
	for i := range s.mods {
		out[i] = s.mods[i].module()
	}
	return out
}

// Module returns the module called name, or ErrNotFound.
func (s *Snapshot) Module(name string) (Module, error) {
	i, ok := s.module(name)
	if !ok {
		return Module{}, pkgerr.Errorf("kallsyms: module %q: %w", name, ErrNotFound)
	}
	return s.mods[i].module(), nil
}

// LookupName returns every symbol called name, in module order and then
// address order; with module != "", only the symbols of that module. It
// collects what LookupNameSeq yields into one slice, which for a name that
// many symbols share is as long as they are many: a caller that prints or
// counts the matches should range over LookupNameSeq instead. It returns
// ErrNotFound when no symbol matches.
func (s *Snapshot) LookupName(name, module string) ([]Symbol, error) {
	var out []Symbol
	for sym := range s.LookupNameSeq(name, module) {
		out = append(out, sym)
	}
	if len(out) == 0 {
		if module != "" {
			return nil, pkgerr.Errorf("kallsyms: symbol %q in module %q: %w", name, module, ErrNotFound)
		}
		return nil, pkgerr.Errorf("kallsyms: symbol %q: %w", name, ErrNotFound)
	}
	return out, nil
}

// LookupNameSeq yields every symbol called name, in the order LookupName
// returns them (module order, then address order); with module != "",
// only the symbols of that module. It yields nothing when no symbol
// matches. It scans the tables linearly, comparing compressed names
// without decoding them, and holds no match: each Symbol's Name is name
// itself, so a caller that writes each as it comes uses constant memory
// however many symbols share the name.
func (s *Snapshot) LookupNameSeq(name, module string) iter.Seq[Symbol] {
	return func(yield func(Symbol) bool) {
		enc := appendEncodedString(nil, name)
		var suffix []byte // encoded name without "__pfx_", for hidden ones
		if rest, ok := strings.CutPrefix(name, pfxPrefix); ok {
			suffix = appendEncodedString(nil, rest)
		}
		for i := range s.mods {
			t := s.mods[i].tab
			if module != "" && t.name != module {
				continue
			}
			for h := range t.match(enc, suffix) {
				if !yield(Symbol{Name: name, Module: t.name, Addr: h.start, Type: t.typeOf(h)}) {
					return
				}
			}
		}
	}
}

// match yields the entries whose encoded name is enc, and the hidden
// __pfx_ symbols whose function's encoded name is suffix (when non-nil).
func (t *table) match(enc, suffix []byte) iter.Seq[hit] {
	return func(yield func(hit) bool) {
		for h, pfx := range t.entries {
			name := t.encName(h)
			if suffix != nil && pfx && bytes.Equal(name, suffix) {
				if !yield(pfxHit(h)) {
					return
				}
			}
			if bytes.Equal(name, enc) && !yield(h) {
				return
			}
		}
	}
}

// All yields every symbol of the snapshot: modules in Modules order, each
// in address order (symbols at equal addresses in input order), hidden
// __pfx_ symbols included. Offset is 0.
func (s *Snapshot) All() iter.Seq[Symbol] {
	return func(yield func(Symbol) bool) {
		for i := range s.mods {
			if !s.mods[i].symbols(yield) {
				return
			}
		}
	}
}

// symbols yields the module's symbols, as All does; it returns false when
// yield does.
func (m *modEntry) symbols(yield func(Symbol) bool) bool {
	t := m.tab
	for h, pfx := range t.entries {
		name := names().decode("", t.encName(h))
		if pfx {
			ph := pfxHit(h)
			if !yield(Symbol{Name: pfxPrefix + name, Module: t.name, Addr: ph.start, Type: t.typeOf(ph)}) {
				return false
			}
		}
		if !yield(Symbol{Name: name, Module: t.name, Addr: h.start, Type: t.typeOf(h)}) {
			return false
		}
	}
	return true
}

// Stats summarizes a snapshot.
type Stats struct {
	// Symbols counts all symbols, __pfx_ padding symbols included.
	Symbols int
	// Modules counts the modules and pseudo-modules, vmlinux excluded.
	Modules int
	// Bytes is the heap memory the snapshot retains.
	Bytes int
	// LoadTime is how long building the snapshot took (reading the input
	// included), or 0 when unknown.
	LoadTime time.Duration
}

// Stats returns the snapshot's statistics.
func (s *Snapshot) Stats() Stats {
	st := Stats{Bytes: s.bytes(), LoadTime: s.load}
	for i := range s.mods {
		st.Symbols += s.mods[i].tab.symbols()
		if s.mods[i].tab.name != Vmlinux {
			st.Modules++
		}
	}
	return st
}
