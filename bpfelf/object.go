package bpfelf

import (
	"bytes"
	"cmp"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/btf/ext"
	"github.com/kmeta-dev/kmeta/internal/elfscan"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// ErrNoExt is returned for a BPF object without a .BTF.ext section.
var ErrNoExt = errors.New("bpfelf: no .BTF.ext section")

// Object is a BPF ELF object (clang -target bpf): its BTF, its .BTF.ext
// records, and its programs, as libbpf finds them (one per STT_FUNC symbol
// in an executable section).
//
// An Object is immutable after opening and safe for concurrent use; Close
// must not run concurrently with other uses.
type Object struct {
	// BTF is the object's own type information (its .BTF section).
	BTF *btf.Spec
	// Ext holds its .BTF.ext records.
	Ext *ext.Ext

	order    binary.ByteOrder
	sections map[string]*progSection
	data     *input.Data
}

// progSection is an executable ELF section and the programs in it, sorted
// by their first instruction.
type progSection struct {
	insns []byte
	progs []Program
}

// Program is a function of a BPF object: a program, or a subprogram in
// .text.
type Program struct {
	Name     string
	Section  string
	InsnOff  int // first instruction, in instructions from the section start
	InsnCnt  int
	Autoload bool // false for sections named "?..." (libbpf's convention)
}

// Options say how Open reads an object.
type Options struct {
	// MaxSize bounds the file and what it inflates to; zero means
	// btf.DefaultMaxSize.
	MaxSize int64
}

// Open reads the BPF object at path, also compressed (.gz, .xz, .zst).
// ctx stops the reading (of a FIFO, say) and decompression. Close
// releases the object's memory.
func Open(ctx context.Context, path string, o Options) (*Object, error) {
	d, err := input.File(ctx, path, input.Options{Limit: o.MaxSize})
	if err != nil {
		return nil, pkgerr.Errorf("bpfelf: %w", err)
	}
	if f := input.Detect(d.Bytes()); f != input.None {
		plain, err := input.Inflate(ctx, f, d.Bytes(), input.Options{Limit: o.MaxSize})
		d.Release()
		if err != nil {
			return nil, pkgerr.Errorf("bpfelf: %s: %w", path, err)
		}
		d = plain
	}
	obj, err := parseObject(d.Bytes())
	if err != nil {
		d.Release()
		return nil, pkgerr.Errorf("bpfelf: %s: %w", path, err)
	}
	obj.data = d
	return obj, nil
}

// Parse reads a BPF object from data, which the caller keeps unchanged
// while the Object is used.
func Parse(data []byte) (*Object, error) {
	obj, err := parseObject(data)
	if err != nil {
		return nil, pkgerr.Errorf("bpfelf: %w", err)
	}
	return obj, nil
}

// Close releases the object's memory. Strings taken from it earlier stay
// valid.
func (o *Object) Close() error {
	if o.BTF != nil {
		o.BTF.Close()
	}
	if o.data != nil {
		o.data.Release()
	}
	return nil
}

// ByteOrder returns the object's byte order.
func (o *Object) ByteOrder() binary.ByteOrder { return o.order }

func parseObject(data []byte) (*Object, error) {
	// debug/elf copies every section's and symbol's name: refuse files
	// whose names would cost more than the file's size first.
	if err := elfscan.Check(data); err != nil {
		return nil, &btf.FormatError{Section: "elf", Offset: -1, Err: err}
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, &btf.FormatError{Section: "elf", Offset: -1, Err: err}
	}
	obj := &Object{order: f.ByteOrder, sections: map[string]*progSection{}}
	if f.Machine != elf.EM_BPF {
		return nil, &btf.FormatError{Section: "elf", Offset: -1, Msg: fmt.Sprintf("machine %v, not a BPF object", f.Machine)}
	}
	raw := func(name string) ([]byte, error) {
		s := f.Section(name)
		if s == nil {
			return nil, nil
		}
		return sectionBytes(data, s)
	}
	b, err := raw(".BTF")
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, btf.ErrNoBTF
	}
	if obj.BTF, err = btf.Parse(b, btf.Options{}); err != nil {
		return nil, err
	}
	b, err = raw(".BTF.ext")
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, ErrNoExt
	}
	if obj.Ext, err = ext.Parse(b, obj.BTF); err != nil {
		return nil, err
	}
	if err := obj.findPrograms(f, data); err != nil {
		return nil, err
	}
	return obj, nil
}

// sectionBytes returns the contents of an uncompressed section in place.
func sectionBytes(data []byte, s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, &btf.FormatError{Section: "elf", Offset: int64(s.Offset), Msg: fmt.Sprintf("section %s has no plain data", s.Name)}
	}
	end := s.Offset + s.FileSize
	if end < s.Offset || end > uint64(len(data)) {
		return nil, &btf.FormatError{Section: "elf", Offset: int64(s.Offset), Msg: fmt.Sprintf("section %s lies outside the file", s.Name)}
	}
	return data[s.Offset:end], nil
}

// findPrograms records the executable sections and their STT_FUNC
// symbols, as libbpf's bpf_object__add_programs does.
func (o *Object) findPrograms(f *elf.File, data []byte) error {
	syms, err := f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return &btf.FormatError{Section: "elf", Offset: -1, Msg: "symbol table", Err: err}
	}
	byIndex := map[int]*progSection{}
	for i, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 || s.Size == 0 {
			continue
		}
		b, err := sectionBytes(data, s)
		if err != nil {
			return err
		}
		ps := &progSection{insns: b}
		o.sections[s.Name] = ps
		byIndex[i] = ps
	}
	for _, sym := range syms {
		ps := byIndex[int(sym.Section)]
		if ps == nil || elf.ST_TYPE(sym.Info) != elf.STT_FUNC {
			continue
		}
		sec := f.Sections[sym.Section].Name
		if sym.Value%8 != 0 || sym.Size%8 != 0 || sym.Value+sym.Size > uint64(len(ps.insns)) || sym.Value+sym.Size < sym.Value {
			return &btf.FormatError{Section: "elf", Offset: -1, Msg: fmt.Sprintf("program %s at %d+%d lies outside section %s", sym.Name, sym.Value, sym.Size, sec)}
		}
		ps.progs = append(ps.progs, Program{
			Name: sym.Name, Section: sec, InsnOff: int(sym.Value / 8), InsnCnt: int(sym.Size / 8),
			Autoload: len(sec) == 0 || sec[0] != '?',
		})
	}
	for _, ps := range o.sections {
		slices.SortStableFunc(ps.progs, func(a, b Program) int { return cmp.Compare(a.InsnOff, b.InsnOff) })
	}
	return nil
}

// Programs returns the object's programs, by section name and
// instruction.
func (o *Object) Programs() []Program {
	var out []Program
	for _, ps := range o.sections {
		out = append(out, ps.progs...)
	}
	slices.SortFunc(out, func(a, b Program) int {
		return cmp.Or(cmp.Compare(a.Section, b.Section), cmp.Compare(a.InsnOff, b.InsnOff))
	})
	return out
}

// Insns returns the instructions of program p of o (p.InsnCnt of them,
// InsnSize bytes each, in the object's byte order), in place: the caller
// must not modify them. It returns nil when p does not lie within an
// executable section of o.
func (o *Object) Insns(p Program) []byte {
	ps := o.sections[p.Section]
	if ps == nil || p.InsnOff < 0 || p.InsnCnt < 0 || (p.InsnOff+p.InsnCnt)*InsnSize > len(ps.insns) {
		return nil
	}
	return ps.insns[p.InsnOff*InsnSize : (p.InsnOff+p.InsnCnt)*InsnSize]
}

// InsnSize is the size of a BPF instruction in bytes (struct bpf_insn;
// a 64-bit immediate load takes two).
const InsnSize = core.InsnSize

// CORE returns what package core reads of o to resolve its CO-RE
// relocations: its BTF, its .BTF.ext records, and its programs with their
// instructions, in place. The result is valid while o is open.
func (o *Object) CORE() core.Object {
	c := core.Object{BTF: o.BTF, Ext: o.Ext, ByteOrder: o.order}
	names := make([]string, 0, len(o.sections))
	n := 0
	for name, ps := range o.sections {
		names = append(names, name)
		n += len(ps.progs)
	}
	slices.Sort(names)
	c.Programs = make([]core.Program, 0, n)
	for _, name := range names {
		// each section's programs in the order libbpf searches them
		for _, p := range o.sections[name].progs {
			c.Programs = append(c.Programs, core.Program{
				Name: p.Name, Section: p.Section, InsnOff: p.InsnOff, Insns: o.Insns(p), Autoload: p.Autoload,
			})
		}
	}
	return c
}
