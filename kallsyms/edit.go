package kallsyms

import (
	"cmp"
	"iter"
	"slices"
)

// BPF is the pseudo-module of BPF programs, trampolines and dispatchers in
// /proc/kallsyms ("[bpf]").
const BPF = "bpf"

// A snapshot is immutable; the methods below derive new snapshots from
// one, sharing its tables. Package kallsyms/live uses them to follow a
// kernel between two reads of /proc/kallsyms.

// SizedSymbol is a symbol whose length is known, as the kernel reports
// the symbols it registers at run time (BPF programs, trampolines and
// dispatchers, in PERF_RECORD_KSYMBOL): what Snapshot.WithSymbols puts in
// a module's table.
type SizedSymbol struct {
	Name string
	Addr uint64
	Size uint64 // bytes; 0 when unknown
}

// WithSymbols returns a snapshot with s's tables and module metadata but
// a table of syms in place of module's symbols: text symbols, which
// resolve as Lookup says, except that a symbol of known Size ends there
// unless the next one starts first (an address past it and below the next
// symbol returns ErrNotText). Symbols with an empty name, or one longer
// than MaxNameLen, are left out. An empty syms removes module's symbols
// but keeps its metadata. s is not changed.
//
// Building the table costs about what parsing as many kallsyms lines
// does: it is meant for modules of a few hundred symbols, such as BPF.
func (s *Snapshot) WithSymbols(module string, syms []SizedSymbol) *Snapshot {
	syms = slices.DeleteFunc(slices.Clone(syms), func(x SizedSymbol) bool { return x.Name == "" || len(x.Name) > MaxNameLen })
	slices.SortStableFunc(syms, func(a, b SizedSymbol) int { return cmp.Compare(a.Addr, b.Addr) })
	b := newBuilder(module, s.data)
	for i, x := range syms {
		b.push(x.Addr, 't', []byte(x.Name), 0)
		if end := x.Addr + x.Size; x.Size > 0 && end > x.Addr && (i+1 == len(syms) || syms[i+1].Addr > end) {
			b.pushAnonEnd(end)
		}
	}
	t := b.finish()
	b.release()
	for _, x := range syms {
		t.rare().end = max(t.end(), x.Addr+x.Size)
	}
	return s.rebuild(module, "", t, nil)
}

// WithModule returns a snapshot with s's tables and module metadata, but
// info in place of the metadata of module info.Name (which need not have
// symbols yet: a module just loaded resolves to its name and an offset
// before kallsyms lists its symbols). s is not changed.
func (s *Snapshot) WithModule(info ModuleInfo) *Snapshot {
	return s.rebuild("", info.Name, nil, &info)
}

// Without returns a snapshot with s's tables and module metadata except
// module's (a module just removed). s is not changed; if s has no such
// module, Without returns s.
func (s *Snapshot) Without(module string) *Snapshot {
	if _, ok := s.module(module); !ok {
		return s
	}
	return s.rebuild(module, module, nil, nil)
}

// ModuleSymbols yields the symbols of module, as All does for every
// module: in address order, hidden __pfx_ symbols included, Offset 0. It
// yields nothing for a module that s does not have.
func (s *Snapshot) ModuleSymbols(module string) iter.Seq[Symbol] {
	return func(yield func(Symbol) bool) {
		if i, ok := s.module(module); ok {
			s.mods[i].symbols(yield)
		}
	}
}

// rebuild returns a new snapshot of s's tables but dropTab's and its
// module metadata but dropInfo's, with the table t and the metadata info
// added when not nil.
func (s *Snapshot) rebuild(dropTab, dropInfo string, t *table, info *ModuleInfo) *Snapshot {
	tabs := make([]*table, 0, len(s.mods)+1)
	var infos []ModuleInfo
	for i := range s.mods {
		m := &s.mods[i]
		if m.tab.name != dropTab && m.tab.len() > 0 {
			tabs = append(tabs, m.tab)
		}
		if m.tab.name != dropInfo && m.info != nil {
			infos = append(infos, *m.info)
		}
	}
	if t != nil && t.len() > 0 {
		tabs = append(tabs, t)
	}
	if info != nil {
		infos = append(infos, *info)
	}
	n := newSnapshot(tabs, infos, s.data)
	n.load = s.load
	return n
}
