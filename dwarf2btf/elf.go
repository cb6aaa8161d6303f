package dwarf2btf

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/kmeta-dev/kmeta/internal/elfscan"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// maxSection bounds the size of one debug section after decompression, so
// that a small hostile file cannot make the reader allocate without limit.
const maxSection = 4 << 30

// maxRatio bounds how many times larger than its compressed form a debug
// section may be.
const maxRatio = 64

// object is an ELF file opened for encoding: its debug sections (inflated
// and relocated where needed), its symbols and its per-CPU section.
type object struct {
	data    []byte // the whole file, usually mapped
	machine uint16
	order   binary.ByteOrder
	le      bool // order is little-endian, read without order's calls
	rel     bool // ET_REL (a .ko): relocations apply
	class32 bool // ELFCLASS32: 32-bit symbols and relocations
	names   []string
	addrs   []uint64 // section addresses: sh_addr, or a layout for ET_REL
	alloc   []bool   // SHF_ALLOC: a relocation adds the section's address
	debug   map[string][]byte
	copied  map[string]bool // debug sections decompressed or relocated, not in place
	// anon holds the relocated sections that are copies in anonymous
	// mappings (copyOut), by name; free unmaps them.
	anon map[string]*mmap.Region
	// debugIdx is the ELF section index each debug section came from.
	debugIdx map[string]int
	symtab   *symTable // nil without one

	percpuIdx  int // section index of .data..percpu, 0 if none
	percpuAddr uint64
	percpuSize uint64

	// sizes and types are the sections' sizes and types (pahole 1.30
	// finds a variable's section by address among them).
	sizes []uint64
	types []elf.SectionType
	// btfIDs is .BTF_ids's contents (the last section of that name, as
	// pahole takes it), btfIDsIdx its index (0: none), btfIDsAddr its
	// sh_addr as the file has it.
	btfIDs     []byte
	btfIDsIdx  int
	btfIDsAddr uint64
	// btfSec is the file's own .BTF, if any: in a -dbg file, the BTF
	// the ids in .BTF_ids refer to.
	btfSec []byte
	// banner is linux_banner's text in a vmlinux, modinfo a module's
	// .modinfo: where the kernel release is read.
	banner  []byte
	modinfo []byte
}

// debugSections are the sections the DWARF reader uses.
var debugSections = []string{
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
	".debug_str_offsets", ".debug_addr", ".debug_loclists", ".debug_loc",
}

// debugName returns the name of the debug section the reader uses that
// the ELF section called name holds, "" if none, and whether it is in the
// .zdebug form.
func debugName(name string) (string, bool) {
	gnu := strings.HasPrefix(name, ".zdebug_")
	if gnu {
		name = "." + name[2:]
	}
	if slices.Contains(debugSections, name) {
		return name, gnu
	}
	return "", false
}

const percpuSection = ".data..percpu"

// openObject parses the ELF image in data, which must stay valid (mapped)
// as long as the object is used.
func openObject(data []byte) (*object, error) {
	// debug/elf copies every section's and symbol's name: refuse files
	// whose names would cost more than the file's size first.
	if err := elfscan.Check(data); err != nil {
		return nil, fmt.Errorf("dwarf2btf: ELF file: %w", err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, pkgerr.Errorf("dwarf2btf: %w", err)
	}
	o := &object{data: data, machine: uint16(f.Machine), order: f.ByteOrder, le: f.ByteOrder == binary.LittleEndian, rel: f.Type == elf.ET_REL,
		class32: f.Class == elf.ELFCLASS32, debug: map[string][]byte{}, copied: map[string]bool{}, debugIdx: map[string]int{}}
	o.names = make([]string, len(f.Sections))
	o.addrs = make([]uint64, len(f.Sections))
	o.alloc = make([]bool, len(f.Sections))
	o.sizes = make([]uint64, len(f.Sections))
	o.types = make([]elf.SectionType, len(f.Sections))
	for i, s := range f.Sections {
		o.names[i] = s.Name
		o.addrs[i], o.alloc[i] = s.Addr, s.Flags&elf.SHF_ALLOC != 0
		o.sizes[i], o.types[i] = s.Size, s.Type
		if s.Name == btfIDsSection && s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_COMPRESSED == 0 {
			if b, err := o.sectionData(s); err == nil {
				o.btfIDs, o.btfIDsIdx, o.btfIDsAddr = b, i, s.Addr
			}
		}
		if s.Name == ".BTF" && s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_COMPRESSED == 0 {
			o.btfSec, _ = o.sectionData(s)
		}
		if s.Name == ".modinfo" && s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_COMPRESSED == 0 {
			o.modinfo, _ = o.sectionData(s)
		}
	}
	if o.rel {
		o.layout(f)
	}
	for i, s := range f.Sections {
		if s.Name == percpuSection {
			o.percpuIdx, o.percpuAddr, o.percpuSize = i, o.addrs[i], s.Size
		}
	}
	if err := o.readSymbols(f); err != nil {
		return nil, err
	}
	o.readBanner(f)
	// The first section of a name counts, as in libdw's check_section,
	// which also takes .zdebug_X, GNU's older compressed form, for
	// .debug_X (binutils' objcopy --compress-debug-sections=zlib-gnu).
	for i, s := range f.Sections {
		name, gnu := debugName(s.Name)
		if _, seen := o.debugIdx[name]; name == "" || seen || s.Type == elf.SHT_NOBITS {
			continue
		}
		var b []byte
		var err error
		if gnu {
			b, err = o.inflateGNU(s)
		} else {
			b, err = o.sectionData(s)
		}
		if err != nil {
			return nil, pkgerr.Errorf("dwarf2btf: section %s: %w", s.Name, err)
		}
		o.debug[name], o.debugIdx[name] = b, i
		if gnu || s.Flags&elf.SHF_COMPRESSED != 0 {
			o.copied[name] = true
		}
	}
	if o.rel {
		if err := o.relocate(f); err != nil {
			o.free()
			return nil, err
		}
	}
	if o.debug[".debug_info"] == nil {
		o.free()
		return nil, ErrNoDWARF
	}
	return o, nil
}

// releasable reports whether the pages of debug section name can be given
// back once read (mmap.Release): in place in a mapped input (mapped), they
// fault back in from the file; in an anonymous copy, they are never read
// again by the caller's contract.
func (o *object) releasable(name string, mapped bool) bool {
	return mapped && o.debugMapped(name) || o.anon[name] != nil
}

// free unmaps the anonymous copies; the debug sections must not be used
// afterwards.
func (o *object) free() {
	for _, g := range o.anon {
		g.Free()
	}
	o.anon = nil
}

// debugMapped reports whether the debug section name is read in place from
// the input, not a copy (relocated or decompressed).
func (o *object) debugMapped(name string) bool {
	return len(o.debug[name]) > 0 && !o.copied[name]
}

// ErrNoDWARF is returned for an ELF file without a .debug_info section.
var ErrNoDWARF = errors.New("dwarf2btf: no DWARF debug information (.debug_info)")

// layout gives the allocated sections of a relocatable object distinct,
// non-overlapping addresses, as libdwfl does when pahole opens a .ko, so
// that a relocated DWARF address tells which section it lies in.
func (o *object) layout(f *elf.File) {
	next := uint64(0x10000)
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Addr != 0 {
			continue
		}
		align := max(s.Addralign, 1)
		if align&(align-1) != 0 || align > 1<<20 {
			align = 1
		}
		next = (next + align - 1) &^ (align - 1)
		o.addrs[i] = next
		next += min(s.Size, 1<<40)
	}
}

// sectionData returns a section's contents: in place when stored plainly,
// else inflated (zlib or zstd, SHF_COMPRESSED). relocate copies the
// sections it changes.
func (o *object) sectionData(s *elf.Section) ([]byte, error) {
	if s.Flags&elf.SHF_COMPRESSED == 0 {
		end := s.Offset + s.FileSize
		if end < s.Offset || end > uint64(len(o.data)) {
			return nil, errors.New("dwarf2btf: lies outside the file")
		}
		return o.data[s.Offset:end:end], nil
	}
	return o.inflate(s)
}

// inflate decompresses an SHF_COMPRESSED section.
func (o *object) inflate(s *elf.Section) ([]byte, error) {
	// Elf64_Chdr: ch_type, ch_reserved, ch_size, ch_addralign; Elf32_Chdr:
	// ch_type, ch_size, ch_addralign, all 32 bits.
	const chdr64SizeAt, chdr32SizeAt = 8, 4
	hdr := uint64(binary.Size(elf.Chdr64{}))
	if o.class32 {
		hdr = uint64(binary.Size(elf.Chdr32{}))
	}
	end := s.Offset + s.FileSize
	if end < s.Offset || end > uint64(len(o.data)) || s.FileSize < hdr {
		return nil, errors.New("dwarf2btf: compressed section lies outside the file")
	}
	raw := o.data[s.Offset:end]
	// A 32-bit header is 12 bytes: its size word is read alone, as the
	// 64-bit one would reach past a section of 12 to 15 bytes.
	typ := o.order.Uint32(raw)
	var size uint64
	if o.class32 {
		size = uint64(o.order.Uint32(raw[chdr32SizeAt:]))
	} else {
		size = o.order.Uint64(raw[chdr64SizeAt:])
	}
	switch elf.CompressionType(typ) {
	case elf.COMPRESS_ZLIB:
		return inflateZlib(raw[hdr:], size, len(raw))
	case elf.COMPRESS_ZSTD:
		if err := checkClaim(size, len(raw)); err != nil {
			return nil, err
		}
		zr, err := zstd.NewReader(bytes.NewReader(raw[hdr:]), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxSection))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return readInflated(zr, size)
	}
	return nil, fmt.Errorf("dwarf2btf: unknown compression type %d", typ)
}

// checkClaim bounds the size a compressed section of n bytes claims to
// inflate to. The claim is not trusted for the allocation either: data
// grows as it inflates, up to the claim, and at most maxRatio times the
// compressed size, far above what debug sections compress by.
func checkClaim(claim uint64, n int) error {
	if limit := min(uint64(maxSection), maxRatio*uint64(n)+1<<20); claim > limit {
		return fmt.Errorf("dwarf2btf: decompressed size %d too large for %d compressed bytes", claim, n)
	}
	return nil
}

// inflateZlib decompresses the zlib stream z of a section of n bytes that
// claims to inflate to size bytes.
func inflateZlib(z []byte, size uint64, n int) ([]byte, error) {
	if err := checkClaim(size, n); err != nil {
		return nil, err
	}
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	return readInflated(zr, size)
}

// readInflated reads exactly size bytes from r, the decompressor, and
// then the end of the stream (and its checksum), as libelf requires.
func readInflated(r io.Reader, size uint64) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, int64(size)))
	if err != nil {
		return nil, pkgerr.Errorf("dwarf2btf: decompress: %w", err)
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("dwarf2btf: decompress: %d bytes, the header says %d", len(out), size)
	}
	var more [1]byte
	switch n, err := io.ReadFull(r, more[:]); {
	case n > 0:
		return nil, fmt.Errorf("dwarf2btf: decompress: more than the %d bytes the header says", size)
	case err != io.EOF:
		return nil, pkgerr.Errorf("dwarf2btf: decompress: %w", err)
	}
	return out, nil
}

// inflateGNU decompresses a .zdebug section: "ZLIB", the inflated size
// as a big-endian 64-bit number, then a zlib stream, as libelf's
// elf_compress_gnu reads it.
func (o *object) inflateGNU(s *elf.Section) ([]byte, error) {
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, errors.New("dwarf2btf: compressed twice (SHF_COMPRESSED and .zdebug)")
	}
	raw, err := o.sectionData(s)
	if err != nil {
		return nil, err
	}
	var h struct {
		Magic [4]byte
		Size  uint64
	}
	n, err := binary.Decode(raw, binary.BigEndian, &h)
	if err != nil || string(h.Magic[:]) != "ZLIB" {
		return nil, errors.New("dwarf2btf: no ZLIB header")
	}
	return inflateZlib(raw[n:], h.Size, len(raw))
}

// readSymbols finds .symtab, the first SHT_SYMTAB section, and its string
// table, as debug/elf's Symbols does, but reads them in place (see
// symTable).
func (o *object) readSymbols(f *elf.File) error {
	sec := f.SectionByType(elf.SHT_SYMTAB)
	if sec == nil {
		return nil
	}
	syms, err := o.sectionData(sec)
	if err != nil {
		return pkgerr.Errorf("dwarf2btf: symbols: %w", err)
	}
	ent := elf.Sym64Size
	if o.class32 {
		ent = elf.Sym32Size
	}
	if len(syms)%ent != 0 {
		return fmt.Errorf("dwarf2btf: symbols: %d bytes, not a whole number of symbols", len(syms))
	}
	if len(syms) == 0 {
		return nil
	}
	if sec.Link == 0 || int(sec.Link) >= len(f.Sections) {
		return fmt.Errorf("dwarf2btf: symbols: string table link %d out of range", sec.Link)
	}
	strs, err := o.sectionData(f.Sections[sec.Link])
	if err != nil {
		return pkgerr.Errorf("dwarf2btf: symbols' strings: %w", err)
	}
	o.symtab = &symTable{order: o.order, le: o.le, class32: o.class32, ent: ent, syms: syms[ent:], strs: strs}
	return nil
}

// symTable is a 64-bit ELF symbol table read in place, in the input's
// memory: debug/elf's Symbols copies the section and its strings and
// makes a string per symbol, all before the encoding can start. The names
// it gives are views of the string table, valid as long as the input is.
type symTable struct {
	order   binary.ByteOrder
	le      bool   // order is little-endian
	class32 bool   // Elf32_Sym entries
	ent     int    // the size of one entry
	syms    []byte // the entries after the null symbol
	strs    []byte
}

// len returns the number of symbols, the null one not counted.
func (t *symTable) len() int {
	if t == nil {
		return 0
	}
	return len(t.syms) / t.ent
}

// at returns symbol i (0-based, the null symbol not counted), as
// debug/elf gives it: a name outside the string table, or without its
// NUL, is "".
func (t *symTable) at(i int) elf.Symbol {
	b := t.syms[i*t.ent : (i+1)*t.ent]
	sec, value := t.placed(i)
	if t.class32 {
		return elf.Symbol{
			Name:    t.name(t.order.Uint32(b[symName:])),
			Value:   value,
			Size:    uint64(t.order.Uint32(b[sym32Size:])),
			Info:    b[sym32Info],
			Other:   b[sym32Info+1],
			Section: sec,
		}
	}
	return elf.Symbol{
		Name:    t.name(t.order.Uint32(b[symName:])),
		Info:    b[symInfo],
		Other:   b[symOther],
		Section: sec,
		Value:   value,
		Size:    t.order.Uint64(b[symSize:]),
	}
}

// placed returns symbol i's section and value, as at does, without the
// rest: a relocation's symbol needs no more (symValue), and at's name
// is a search for its NUL, at's whole about 200 instructions a
// relocation of a module's debug sections (BENCH.md, "The instructions
// of one big encoding").
func (t *symTable) placed(i int) (elf.SectionIndex, uint64) {
	b := t.syms[i*t.ent : (i+1)*t.ent]
	switch {
	case t.class32:
		return elf.SectionIndex(t.order.Uint16(b[sym32Info+2:])), uint64(t.order.Uint32(b[sym32Value:]))
	case t.le: // order's calls through its interface were half of placed
		return elf.SectionIndex(binary.LittleEndian.Uint16(b[symShndx:])), binary.LittleEndian.Uint64(b[symValue:])
	}
	return elf.SectionIndex(t.order.Uint16(b[symShndx:])), t.order.Uint64(b[symValue:])
}

// The fields of an Elf64_Sym, by offset.
const (
	symName  = 0
	symInfo  = 4
	symOther = 5
	symShndx = 6
	symValue = 8
	symSize  = 16
)

// The fields of an Elf32_Sym, where they differ: st_value, st_size, then
// st_info, st_other and st_shndx.
const (
	sym32Value = 4
	sym32Size  = 8
	sym32Info  = 12
)

func (t *symTable) name(off uint32) string {
	if uint64(off) >= uint64(len(t.strs)) {
		return ""
	}
	b := t.strs[off:]
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), n)
}

// is reports whether symbol i is called name and of type typ, without
// making its name.
func (t *symTable) is(i int, name string, typ elf.SymType) bool {
	b := t.syms[i*t.ent : (i+1)*t.ent]
	info := b[symInfo]
	if t.class32 {
		info = b[sym32Info]
	}
	if elf.ST_TYPE(info) != typ {
		return false
	}
	off := uint64(t.order.Uint32(b[symName:]))
	return off < uint64(len(t.strs)) && uint64(len(t.strs))-off > uint64(len(name)) &&
		string(t.strs[off:off+uint64(len(name))]) == name && t.strs[off+uint64(len(name))] == 0
}

// all yields every symbol with its index, as at numbers them.
func (t *symTable) all() iter.Seq2[int, elf.Symbol] {
	return func(yield func(int, elf.Symbol) bool) {
		for i := range t.len() {
			if !yield(i, t.at(i)) {
				return
			}
		}
	}
}

// symValue is the relocation value of symbol i (1-based in the symbol
// table), as libdwfl's relocate_getsym gives it: its value plus, for a
// symbol of an allocated section of a relocatable object, the section's
// address (layout); 0 for a common symbol; ok false for an undefined one,
// whose relocations libdwfl skips (it resolves names only against other
// modules, and pahole reports one).
func (o *object) symValue(i uint32) (v uint64, ok bool, err error) {
	if i == 0 {
		return 0, true, nil
	}
	if int(i) > o.symtab.len() {
		return 0, false, fmt.Errorf("dwarf2btf: relocation refers to symbol %d of %d", i, o.symtab.len())
	}
	sec, value := o.symtab.placed(int(i) - 1)
	switch {
	case sec == elf.SHN_UNDEF:
		return 0, false, nil
	case sec == elf.SHN_COMMON:
		return 0, true, nil
	case sec < elf.SHN_LORESERVE && int(sec) < len(o.addrs) && o.alloc[sec]:
		return value + o.addrs[sec], true, nil
	}
	return value, true, nil
}

// readBanner keeps the text of the linux_banner symbol, if any.
func (o *object) readBanner(f *elf.File) {
	for i := range o.symtab.len() {
		if !o.symtab.is(i, "linux_banner", elf.STT_OBJECT) {
			continue
		}
		s := o.symtab.at(i)
		if int(s.Section) >= len(f.Sections) || s.Section == elf.SHN_UNDEF {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_COMPRESSED != 0 {
			return
		}
		b, err := o.sectionData(sec)
		off := s.Value - sec.Addr
		if err != nil || s.Value < sec.Addr || off >= uint64(len(b)) {
			return
		}
		o.banner = b[off:min(uint64(len(b)), off+min(s.Size, 512))]
		return
	}
}

// release returns the kernel release the object was built for: from
// linux_banner ("Linux version RELEASE (...") in a vmlinux, from
// .modinfo's vermagic ("vermagic=RELEASE SMP ...") in a module; "" if
// neither is there.
func (o *object) release() string {
	if r, ok := bytes.CutPrefix(o.banner, []byte("Linux version ")); ok {
		if i := bytes.IndexAny(r, " \x00\n"); i > 0 {
			return string(r[:i])
		}
	}
	for f := range bytes.SplitSeq(o.modinfo, []byte{0}) {
		if r, ok := bytes.CutPrefix(f, []byte("vermagic=")); ok {
			if i := bytes.IndexAny(r, " \x00"); i > 0 {
				return string(r[:i])
			} else if len(r) > 0 {
				return string(r)
			}
		}
	}
	return ""
}

// KernelRelease returns the release of the kernel that the ELF image data
// (a vmlinux or a module, uncompressed) belongs to, as CompatKernel reads
// it: the text after "Linux version " in the linux_banner symbol of a
// vmlinux, or the first word of a module's .modinfo vermagic. It returns
// "" when data has neither.
func KernelRelease(data []byte) (string, error) {
	o, err := openObject(data)
	if err != nil {
		return "", err
	}
	defer o.free()
	return o.release(), nil
}
