package hostile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// The eighth campaign of issue 37 mutates DWARF by its structure, not
// its bytes: MutateDWARF parses the units, abbreviations and DIEs of an
// ELF object's .debug_info and rewrites one thing a byte flip seldom
// reaches (a reference, a ring of references, a tag, a form, a size, a
// unit header, a relocation, a compressed section's header), keeping
// every other byte where it was. BuildDWARF8 makes the shapes a mutation
// of a small object cannot: wide, deep and many.

// dwarfForm sizes: fixed is the size of a form's value, or -1 if it is
// variable (a string, a LEB128, a block), -2 if the form is unknown.
func dwarfFormSize(form uint64, version, addrSize int) int {
	switch form {
	case 0x01: // addr
		return addrSize
	case 0x05, 0x12, 0x26, 0x2a: // data2, ref2, strx2, addrx2
		return 2
	case 0x06, 0x0e, 0x13, 0x17, 0x1c, 0x1d, 0x1f, 0x28, 0x2c, 0x1f20, 0x1f21: // data4, strp, ref4, sec_offset, ref_sup4, strp_sup, line_strp, strx4, addrx4, GNU alt
		return 4
	case 0x07, 0x14, 0x20, 0x24: // data8, ref8, ref_sig8, ref_sup8
		return 8
	case 0x0b, 0x0c, 0x11, 0x25, 0x29: // data1, flag, ref1, strx1, addrx1
		return 1
	case 0x27, 0x2b: // strx3, addrx3
		return 3
	case 0x1e: // data16
		return 16
	case 0x19, 0x21: // flag_present, implicit_const
		return 0
	case 0x10: // ref_addr
		if version <= 2 {
			return addrSize
		}
		return 4
	case 0x03, 0x04, 0x08, 0x09, 0x0a, 0x0d, 0x0f, 0x15, 0x16, 0x18, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02:
		return -1
	}
	return -2
}

// dwAttr is one attribute of a DIE as MutateDWARF found it: its name and
// form, and where its value lies in .debug_info.
type dwAttr struct {
	at, form  uint64
	pos, size int // size -1: variable
	die       int // index in dwInfo.dies
}

// dwDIE is one DIE: its offset in .debug_info, its unit, and where its
// abbreviation's tag and children flag lie in .debug_abbrev.
type dwDIE struct {
	off, unit       int
	tagPos, tagSize int
	childPos        int
}

// dwUnit is one unit's header.
type dwUnit struct {
	off, end, hdr int // offset, end, offset of its first DIE
	version       int
	addrSize      int
}

// dwInfo is what MutateDWARF parsed of .debug_info and .debug_abbrev.
type dwInfo struct {
	units []dwUnit
	dies  []dwDIE
	attrs []dwAttr
	forms []int // positions in .debug_abbrev of one-byte forms
}

type dwAbbrevAttr struct {
	at, form uint64
	formPos  int
}

type dwAbbrev struct {
	tagPos, tagSize, childPos int
	end                       int // offset after the abbreviation
	children                  bool
	attrs                     []dwAbbrevAttr
}

func uleb(b []byte, i int) (uint64, int, bool) {
	var v uint64
	for s := 0; i < len(b); s += 7 {
		c := b[i]
		i++
		if s < 64 {
			v |= uint64(c&0x7f) << s
		}
		if c < 0x80 {
			return v, i, true
		}
	}
	return 0, i, false
}

// parseAbbrevs reads the abbreviation table at off.
func parseAbbrevs(ab []byte, off int) (map[uint64]*dwAbbrev, []int) {
	m := map[uint64]*dwAbbrev{}
	var forms []int
	i := off
	for i < len(ab) {
		code, j, ok := uleb(ab, i)
		if !ok || code == 0 {
			break
		}
		a := &dwAbbrev{tagPos: j}
		_, k, ok := uleb(ab, j)
		if !ok || k >= len(ab) {
			break
		}
		a.tagSize, a.childPos, a.children = k-j, k, ab[k] != 0
		i = k + 1
		for {
			at, j, ok1 := uleb(ab, i)
			form, k, ok2 := uleb(ab, j)
			if !ok1 || !ok2 {
				return m, forms
			}
			i = k
			if at == 0 && form == 0 {
				break
			}
			if form == 0x21 { // implicit_const: its value follows
				_, i, _ = uleb(ab, i)
			}
			if k-j == 1 {
				forms = append(forms, j)
			}
			a.attrs = append(a.attrs, dwAbbrevAttr{at, form, j})
		}
		a.end = i
		m[code] = a
	}
	return m, forms
}

// parseDWARF walks every unit of info (32-bit DWARF 2 to 5, little
// endian) and records its DIEs and their attributes, stopping quietly at
// the first thing it cannot read.
func parseDWARF(info, abbrev []byte, relocs map[int]infoReloc) *dwInfo {
	d := &dwInfo{}
	le := binary.LittleEndian
	seen := map[uint64]bool{}
	for off := 0; off+11 <= len(info); {
		length := int(le.Uint32(info[off:]))
		if length >= 0xfffffff0 || off+4+length > len(info) || length < 7 {
			break
		}
		u := dwUnit{off: off, end: off + 4 + length, version: int(le.Uint16(info[off+4:]))}
		abField := off + 6
		switch {
		case u.version >= 5:
			ut := info[off+6]
			u.addrSize, abField, u.hdr = int(info[off+7]), off+8, off+12
			if ut == 2 || ut == 6 { // type units: a signature and an offset
				u.hdr += 12
			} else if ut == 4 || ut == 5 { // skeleton and split: a DWO id
				u.hdr += 8
			}
		default:
			u.addrSize, u.hdr = int(info[off+10]), off+11
		}
		abOff := uint64(le.Uint32(info[abField:]))
		if r, ok := relocs[abField]; ok {
			abOff = uint64(uint32(r.val))
		}
		off = u.end
		if abOff >= uint64(len(abbrev)) || u.hdr > u.end {
			continue
		}
		abbrevs, forms := parseAbbrevs(abbrev, int(abOff))
		if !seen[abOff] {
			seen[abOff] = true
			d.forms = append(d.forms, forms...)
		}
		d.units = append(d.units, u)
		ui := len(d.units) - 1
	dies:
		for i := u.hdr; i < u.end; {
			start := i
			code, j, ok := uleb(info, i)
			if !ok {
				break
			}
			i = j
			if code == 0 {
				continue
			}
			a := abbrevs[code]
			if a == nil {
				break
			}
			d.dies = append(d.dies, dwDIE{off: start, unit: ui, tagPos: a.tagPos, tagSize: a.tagSize, childPos: a.childPos})
			for _, at := range a.attrs {
				form := at.form
				size := dwarfFormSize(form, u.version, u.addrSize)
				switch {
				case size == -2:
					break dies
				case size >= 0:
					d.attrs = append(d.attrs, dwAttr{at.at, form, i, size, len(d.dies) - 1})
					i += size
					continue
				}
				pos := i
				switch form {
				case 0x08: // string
					n := bytes.IndexByte(info[i:u.end], 0)
					if n < 0 {
						break dies
					}
					i += n + 1
				case 0x03, 0x04, 0x0a: // block2, block4, block1
					w := map[uint64]int{0x03: 2, 0x04: 4, 0x0a: 1}[form]
					if i+w > u.end {
						break dies
					}
					var n uint64
					for k := w - 1; k >= 0; k-- {
						n = n<<8 | uint64(info[i+k])
					}
					i += w + int(n)
				case 0x09, 0x18: // block, exprloc
					n, j, ok := uleb(info, i)
					if !ok || n > uint64(u.end) {
						break dies
					}
					i = j + int(n)
				case 0x16: // indirect
					break dies
				default: // LEB128s
					_, j, ok := uleb(info, i)
					if !ok {
						break dies
					}
					i = j
				}
				d.attrs = append(d.attrs, dwAttr{at.at, form, pos, -1, len(d.dies) - 1})
			}
		}
	}
	return d
}

// dwarfSections returns the file offsets and sizes of .debug_info and
// .debug_abbrev in an ELF file, and the relocation and compressed
// sections' headers. Compressed .debug_info is not mutated by structure.
type elfSections struct {
	info, abbrev [2]int // offset, size; 0 size if absent or compressed
	rela         [][2]int
	infoRela     [2]int // .rela.debug_info, also in rela
	relaEnt      int
	chdrs        []int // file offsets of SHF_COMPRESSED sections' headers
	symtab       [2]int
	zdebug       []int // file offsets of .zdebug_* sections (their "ZLIB" and size)
	class64      bool
	mips64       bool // MIPS64's r_info holds the symbol in its low half
}

func findSections(data []byte) (*elfSections, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if f.ByteOrder != binary.LittleEndian {
		return nil, errors.New("big-endian ELF")
	}
	s := &elfSections{class64: f.Class == elf.ELFCLASS64, relaEnt: 24, mips64: f.Machine == elf.EM_MIPS}
	if !s.class64 {
		s.relaEnt = 12
	}
	for _, sec := range f.Sections {
		if sec.Type == elf.SHT_NOBITS || sec.Offset+sec.FileSize > uint64(len(data)) {
			continue
		}
		where := [2]int{int(sec.Offset), int(sec.FileSize)}
		switch {
		case sec.Type == elf.SHT_SYMTAB:
			s.symtab = where
		case sec.Flags&elf.SHF_COMPRESSED != 0:
			s.chdrs = append(s.chdrs, int(sec.Offset))
		case len(sec.Name) > 8 && sec.Name[:8] == ".zdebug_":
			s.zdebug = append(s.zdebug, int(sec.Offset))
		case sec.Name == ".debug_info":
			s.info = where
		case sec.Name == ".debug_abbrev":
			s.abbrev = where
		case sec.Type == elf.SHT_RELA && (sec.Name == ".rela.debug_info" || sec.Name == ".rela.debug_str_offsets" || sec.Name == ".rela.debug_addr"):
			s.rela = append(s.rela, where)
			if sec.Name == ".rela.debug_info" {
				s.infoRela = where
			}
		}
	}
	return s, nil
}

// infoReloc is a RELA relocation of a field of .debug_info: the value
// it gives the field (its symbol's value plus its addend), and where in
// the file its addend lies.
type infoReloc struct {
	val       uint64
	sym       uint64 // the symbol's value
	addendPos int
}

// infoRelocs maps the offset in .debug_info of each field that
// .rela.debug_info relocates to its relocation. In a relocatable object a
// reader sees such a field as the relocation makes it, not as its bytes
// are (zero where the addend holds the value): a unit's abbreviation
// offset, its section bases, a DW_FORM_strp or DW_FORM_sec_offset.
// Relocations whose symbol is not in .symtab are left out.
func infoRelocs(data []byte, s *elfSections) map[int]infoReloc {
	le := binary.LittleEndian
	m := map[int]infoReloc{}
	symEnt, valAt := 16, 4
	if s.class64 {
		symEnt, valAt = 24, 8
	}
	for p := s.infoRela[0]; p+s.relaEnt <= s.infoRela[0]+s.infoRela[1]; p += s.relaEnt {
		var off, sym uint64
		var r infoReloc
		var addend int64
		if s.class64 {
			info := le.Uint64(data[p+8:])
			off, sym, r.addendPos, addend = le.Uint64(data[p:]), info>>32, p+16, int64(le.Uint64(data[p+16:]))
			if s.mips64 { // r_sym, r_ssym, r_type3, r_type2, r_type
				sym = info & 0xffffffff
			}
		} else {
			off, sym, r.addendPos, addend = uint64(le.Uint32(data[p:])), uint64(le.Uint32(data[p+4:])>>8), p+8, int64(int32(le.Uint32(data[p+8:])))
		}
		if sym >= uint64(s.symtab[1]/symEnt) || off >= uint64(s.info[1]) {
			continue
		}
		at := uint64(s.symtab[0]) + sym*uint64(symEnt)
		if s.class64 {
			r.sym = le.Uint64(data[at+uint64(valAt):])
		} else {
			r.sym = uint64(le.Uint32(data[at+uint64(valAt):]))
		}
		r.val = r.sym + uint64(addend)
		m[int(off)] = r
	}
	return m
}

// DWARFMutation names what MutateDWARF changed.
type DWARFMutation int

// The mutations.
const (
	MutRef        DWARFMutation = iota // a reference (DW_AT_type, _sibling, _specification, _abstract_origin, any ref form) pointed elsewhere: another DIE, itself, the middle of a DIE, another unit, past the end
	MutRing                            // k DIEs' DW_AT_type made a ring, k from 1 to thousands
	MutTag                             // an abbreviation's tag swapped for another type or scope tag
	MutForm                            // a one-byte form of an abbreviation changed to another
	MutChildren                        // an abbreviation's children flag flipped
	MutHuge                            // a size, bound, count or bit offset set to a huge value
	MutUnitHeader                      // a unit's version, address size, abbreviation offset or length
	MutReloc                           // a relocation against .debug_info: its offset, type, symbol or addend
	MutChdr                            // a compressed section's header (SHF_COMPRESSED or .zdebug) lies about its size or type
	MutLocation                        // a location expression's operations replaced, or a location, location list or section base offset made huge
	MutSymbol                          // an ELF symbol's name, value, size, section or type
	numDWARFMutations
)

// String names the mutation in lower case.
func (m DWARFMutation) String() string {
	return [...]string{"ref", "ring", "tag", "form", "children", "huge", "unit-header", "reloc", "chdr", "location", "symbol"}[m]
}

var (
	mutTags  = []byte{0x01, 0x04, 0x05, 0x0b, 0x0d, 0x0f, 0x10, 0x11, 0x13, 0x15, 0x16, 0x17, 0x18, 0x1c, 0x1d, 0x1f, 0x21, 0x24, 0x26, 0x28, 0x2e, 0x2f, 0x34, 0x35, 0x37, 0x39, 0x3b, 0x3c, 0x3d, 0x41, 0x42, 0x47, 0x4a}
	mutForms = []byte{0x01, 0x05, 0x06, 0x07, 0x08, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x25, 0x28, 0x29, 0x2c, 0x16, 0x00, 0x7f}
	hugeVals = []uint64{0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, 1 << 40, 1<<63 - 1, 1 << 63, ^uint64(0)}
)

// isRef says whether form refers to a DIE by an offset.
func isRef(form uint64) bool { return form >= 0x10 && form <= 0x15 }

// MutateDWARF returns a mutant of data, an ELF object with DWARF, by m,
// and a line saying what changed; ok is false if data has nothing m can
// change (no such attribute, no relocations).
func MutateDWARF(rng *rand.Rand, data []byte, m DWARFMutation) (out []byte, what string, ok bool) {
	s, err := findSections(data)
	if err != nil {
		return nil, "", false
	}
	out = bytes.Clone(data)
	le := binary.LittleEndian
	info := out[s.info[0] : s.info[0]+s.info[1]]
	abbrev := out[s.abbrev[0] : s.abbrev[0]+s.abbrev[1]]
	relocs := infoRelocs(out, s)
	d := parseDWARF(info, abbrev, relocs)
	pick := func(keep func(a dwAttr) bool) (dwAttr, bool) {
		var c []dwAttr
		for _, a := range d.attrs {
			if keep(a) {
				c = append(c, a)
			}
		}
		if len(c) == 0 {
			return dwAttr{}, false
		}
		return c[rng.IntN(len(c))], true
	}
	// put makes the field of size bytes at pos in .debug_info read as v,
	// cut to size: its relocation's addend if it has one, else its bytes.
	// It returns the value a reader sees, and what the line says of a
	// relocated field.
	put := func(pos, size int, v uint64) (uint64, string) {
		if size < 8 {
			v &= 1<<(8*size) - 1
		}
		if r, ok := relocs[pos]; ok {
			if s.class64 {
				le.PutUint64(out[r.addendPos:], v-r.sym)
			} else {
				le.PutUint32(out[r.addendPos:], uint32(v-r.sym))
			}
			return v, " by its relocation's addend"
		}
		for k := range size {
			info[pos+k] = byte(v >> (8 * k))
		}
		return v, ""
	}
	switch m {
	case MutRef:
		a, ok := pick(func(a dwAttr) bool { return isRef(a.form) && a.size > 0 })
		if !ok || len(d.dies) == 0 {
			return nil, "", false
		}
		u := d.units[d.dies[a.die].unit]
		base := u.off
		if a.form == 0x10 {
			base = 0
		}
		other := d.dies[rng.IntN(len(d.dies))].off
		var v uint64
		kind := ""
		switch rng.IntN(7) {
		case 0:
			v, kind = uint64(d.dies[a.die].off-base), "itself"
		case 1:
			v, kind = uint64(other-base+1+rng.IntN(3)), "the middle of a DIE"
		case 2:
			v, kind = uint64(u.end-base+rng.IntN(64)), "past its unit"
		case 3:
			v, kind = hugeVals[rng.IntN(len(hugeVals))], "anywhere"
		case 4:
			v, kind = 0, "offset 0"
		default:
			v, kind = uint64(other-base), "another DIE"
			if other < u.off || other >= u.end {
				kind = "a DIE of another unit"
			}
		}
		v, via := put(a.pos, a.size, v)
		return out, fmt.Sprintf("attribute %#x (form %#x) at .debug_info+%#x points at %s (%#x)%s", a.at, a.form, a.pos, kind, v, via), true
	case MutRing:
		var typed []dwAttr
		for _, a := range d.attrs {
			if a.at == 0x49 && a.form == 0x13 {
				typed = append(typed, a)
			}
		}
		if len(typed) == 0 {
			return nil, "", false
		}
		u := d.dies[typed[rng.IntN(len(typed))].die].unit
		typed = slices.DeleteFunc(typed, func(a dwAttr) bool { return d.dies[a.die].unit != u })
		rng.Shuffle(len(typed), func(i, j int) { typed[i], typed[j] = typed[j], typed[i] })
		k := []int{1, 2, 3, 5, 8, 64, len(typed)}[rng.IntN(7)]
		k = min(k, len(typed))
		ring := typed[:k]
		for i, a := range ring {
			put(a.pos, a.size, uint64(d.dies[ring[(i+1)%k].die].off-d.units[u].off))
		}
		return out, fmt.Sprintf("a ring of %d DW_AT_type references in the unit at .debug_info+%#x", k, d.units[u].off), true
	case MutTag:
		var c []dwDIE
		for _, x := range d.dies {
			if x.tagSize == 1 {
				c = append(c, x)
			}
		}
		if len(c) == 0 {
			return nil, "", false
		}
		x := c[rng.IntN(len(c))]
		old := abbrev[x.tagPos]
		abbrev[x.tagPos] = mutTags[rng.IntN(len(mutTags))]
		return out, fmt.Sprintf("tag %#x at .debug_abbrev+%#x becomes %#x", old, x.tagPos, abbrev[x.tagPos]), true
	case MutForm:
		if len(d.forms) == 0 {
			return nil, "", false
		}
		p := d.forms[rng.IntN(len(d.forms))]
		old := abbrev[p]
		abbrev[p] = mutForms[rng.IntN(len(mutForms))]
		return out, fmt.Sprintf("form %#x at .debug_abbrev+%#x becomes %#x", old, p, abbrev[p]), true
	case MutChildren:
		if len(d.dies) == 0 {
			return nil, "", false
		}
		x := d.dies[rng.IntN(len(d.dies))]
		abbrev[x.childPos] ^= 1
		return out, fmt.Sprintf("children flag at .debug_abbrev+%#x flipped", x.childPos), true
	case MutHuge:
		a, ok := pick(func(a dwAttr) bool {
			switch a.at {
			case 0x0b, 0x0c, 0x0d, 0x2f, 0x37, 0x38, 0x6b, 0x1c, 0x22: // sizes, bounds, counts, offsets, const values, lower bound
				return a.size > 0
			}
			return false
		})
		if !ok {
			return nil, "", false
		}
		v := hugeVals[rng.IntN(len(hugeVals))]
		v, via := put(a.pos, a.size, v)
		return out, fmt.Sprintf("attribute %#x (form %#x) at .debug_info+%#x set to %#x%s", a.at, a.form, a.pos, v, via), true
	case MutUnitHeader:
		if len(d.units) == 0 {
			return nil, "", false
		}
		u := d.units[rng.IntN(len(d.units))]
		switch rng.IntN(5) {
		case 0:
			v := uint16(rng.IntN(8))
			le.PutUint16(info[u.off+4:], v)
			return out, fmt.Sprintf("unit at %#x: version %d", u.off, v), true
		case 1:
			p := u.off + 10
			if u.version >= 5 {
				p = u.off + 7
			}
			info[p] = []byte{0, 1, 2, 3, 4, 16, 255}[rng.IntN(7)]
			return out, fmt.Sprintf("unit at %#x: address size %d", u.off, info[p]), true
		case 2:
			if u.version < 5 {
				return nil, "", false
			}
			info[u.off+6] = byte(rng.IntN(8))
			return out, fmt.Sprintf("unit at %#x: unit type %d", u.off, info[u.off+6]), true
		case 3:
			p := u.off + 6
			if u.version >= 5 {
				p = u.off + 8
			}
			v := uint32(hugeVals[rng.IntN(len(hugeVals))])
			_, via := put(p, 4, uint64(v))
			return out, fmt.Sprintf("unit at %#x: abbreviation offset %#x%s", u.off, v, via), true
		default:
			v := uint32(hugeVals[rng.IntN(len(hugeVals))])
			le.PutUint32(info[u.off:], v)
			return out, fmt.Sprintf("unit at %#x: length %#x", u.off, v), true
		}
	case MutReloc:
		if len(s.rela) == 0 || !s.class64 {
			return nil, "", false
		}
		r := s.rela[rng.IntN(len(s.rela))]
		n := r[1] / s.relaEnt
		if n == 0 {
			return nil, "", false
		}
		p := r[0] + rng.IntN(n)*s.relaEnt
		switch rng.IntN(4) {
		case 0:
			v := hugeVals[rng.IntN(len(hugeVals))]
			le.PutUint64(out[p:], v)
			return out, fmt.Sprintf("relocation at file+%#x: offset %#x", p, v), true
		case 1:
			v := uint32(rng.IntN(300))
			le.PutUint32(out[p+8:], v)
			return out, fmt.Sprintf("relocation at file+%#x: type %d", p, v), true
		case 2:
			v := uint32(hugeVals[rng.IntN(len(hugeVals))])
			le.PutUint32(out[p+12:], v)
			return out, fmt.Sprintf("relocation at file+%#x: symbol %#x", p, v), true
		default:
			v := hugeVals[rng.IntN(len(hugeVals))]
			le.PutUint64(out[p+16:], v)
			return out, fmt.Sprintf("relocation at file+%#x: addend %#x", p, v), true
		}
	case MutChdr:
		switch {
		case len(s.chdrs) > 0 && s.class64:
			p := s.chdrs[rng.IntN(len(s.chdrs))]
			if rng.IntN(4) == 0 {
				v := uint32(rng.IntN(4))
				le.PutUint32(out[p:], v)
				return out, fmt.Sprintf("compressed section at file+%#x: type %d", p, v), true
			}
			v := hugeVals[rng.IntN(len(hugeVals))]
			if rng.IntN(2) == 0 {
				v = le.Uint64(out[p+8:]) + uint64(rng.IntN(9)) - 4
			}
			le.PutUint64(out[p+8:], v)
			return out, fmt.Sprintf("compressed section at file+%#x: size %#x", p, v), true
		case len(s.zdebug) > 0:
			p := s.zdebug[rng.IntN(len(s.zdebug))]
			v := hugeVals[rng.IntN(len(hugeVals))]
			if rng.IntN(2) == 0 {
				v = binary.BigEndian.Uint64(out[p+4:]) + uint64(rng.IntN(9)) - 4
			}
			binary.BigEndian.PutUint64(out[p+4:], v)
			return out, fmt.Sprintf(".zdebug section at file+%#x: size %#x", p, v), true
		}
		return nil, "", false
	case MutLocation:
		return mutateLocation(rng, out, info, d, put)
	case MutSymbol:
		if s.symtab[1] < 48 || !s.class64 {
			return nil, "", false
		}
		p := s.symtab[0] + 24*(1+rng.IntN(s.symtab[1]/24-1))
		switch rng.IntN(5) {
		case 0:
			v := uint32(hugeVals[rng.IntN(len(hugeVals))])
			le.PutUint32(out[p:], v)
			return out, fmt.Sprintf("symbol at file+%#x: name %#x", p, v), true
		case 1:
			out[p+4] = byte(rng.IntN(256))
			return out, fmt.Sprintf("symbol at file+%#x: info %#x", p, out[p+4]), true
		case 2:
			v := uint16(hugeVals[rng.IntN(len(hugeVals))])
			le.PutUint16(out[p+6:], v)
			return out, fmt.Sprintf("symbol at file+%#x: section %#x", p, v), true
		case 3:
			v := hugeVals[rng.IntN(len(hugeVals))]
			le.PutUint64(out[p+8:], v)
			return out, fmt.Sprintf("symbol at file+%#x: value %#x", p, v), true
		default:
			v := hugeVals[rng.IntN(len(hugeVals))]
			le.PutUint64(out[p+16:], v)
			return out, fmt.Sprintf("symbol at file+%#x: size %#x", p, v), true
		}
	}
	return nil, "", false
}

// locOps are DWARF expression operations mutateLocation writes: addresses
// (DW_OP_addr, DW_OP_addrx, DW_OP_GNU_addr_index), constants, TLS,
// pieces, entry values, registers, stack operations.
var locOps = []byte{0x03, 0xa1, 0xfb, 0x10, 0x11, 0x23, 0xe0, 0x9b, 0x93, 0xa3, 0xf3, 0x50, 0x70, 0x91, 0x06, 0x12, 0x22, 0x96, 0x9f, 0x0c, 0xff}

// mutateLocation rewrites a DW_AT_location expression with operations of
// locOps and huge operands, or makes a location's offset (a location
// list) or a unit's base offset (DW_AT_str_offsets_base, _addr_base,
// _rnglists_base, _loclists_base) huge.
func mutateLocation(rng *rand.Rand, out, info []byte, d *dwInfo, put func(pos, size int, v uint64) (uint64, string)) ([]byte, string, bool) {
	var c []dwAttr
	for _, a := range d.attrs {
		switch {
		case a.at == 0x02 && (a.form == 0x18 || a.size > 0),
			(a.at == 0x72 || a.at == 0x73 || a.at == 0x74 || a.at == 0x8c) && a.size > 0:
			c = append(c, a)
		}
	}
	if len(c) == 0 {
		return nil, "", false
	}
	a := c[rng.IntN(len(c))]
	if a.form != 0x18 {
		v := hugeVals[rng.IntN(len(hugeVals))]
		v, via := put(a.pos, a.size, v)
		return out, fmt.Sprintf("attribute %#x (form %#x) at .debug_info+%#x set to %#x%s", a.at, a.form, a.pos, v, via), true
	}
	n, j, ok := uleb(info, a.pos)
	if !ok || n == 0 || j+int(n) > len(info) {
		return nil, "", false
	}
	expr := info[j : j+int(n)]
	for i := range expr {
		if rng.IntN(2) == 0 {
			expr[i] = locOps[rng.IntN(len(locOps))]
		} else {
			expr[i] = byte(hugeVals[rng.IntN(len(hugeVals))])
		}
	}
	return out, fmt.Sprintf("location expression at .debug_info+%#x (%d bytes) rewritten", j, n), true
}

// DWARFMutations lists every mutation.
func DWARFMutations() []DWARFMutation { return upTo(numDWARFMutations) }

// DWARF8Shape names a shape BuildDWARF8 makes: DWARF no compiler writes,
// each in an x86-64 ELF relocatable file, with n as its size.
type DWARF8Shape int

// The shapes.
const (
	WideStruct    DWARF8Shape = iota // a struct "s" of n int members, at 4-byte steps
	WideEnum                         // an enumeration "e" of n enumerators
	ManyParams                       // a subroutine type of n int parameters, and a typedef "f" of a pointer to it
	DeepLexical                      // a function "f" whose body nests n lexical blocks, each declaring a struct "s"
	DeepInlined                      // a function "f" that inlines itself n deep (DW_AT_abstract_origin of each is "f")
	OriginRing                       // n functions, each the abstract origin and the specification of the next, the last of the first
	TypedefLine                      // n typedefs, each of the next one (forward references), the last of int
	PointerLine                      // n pointers, each to the next one, the last to int
	HugeArray                        // an array "a" of int with n subranges, each of 2^32-1 elements
	StrxBomb                         // a DWARF 5 unit of n types named by DW_FORM_strx4 with indexes past .debug_str_offsets, whose base is huge
	TypeUnits                        // n DWARF 5 type units (DW_UT_type), each a struct whose member refers by signature to the next one's, and a variable of the first
	Skeletons                        // n DWARF 5 skeleton units (DW_UT_skeleton) naming .dwo files that are not there
	ImplicitSizes                    // n structs whose byte size and member offset are DW_FORM_implicit_const values near 2^63
	AbbrevTails                      // n compile units over one table of n abbreviations, unit i's offset at declaration i: each unit's table is the tail of the one before
	numDWARF8Shapes
)

// DWARF8Shapes lists every shape.
func DWARF8Shapes() []DWARF8Shape { return upTo(numDWARF8Shapes) }

// String names the shape in lower case with dashes.
func (k DWARF8Shape) String() string {
	return [...]string{"wide-struct", "wide-enum", "many-params", "deep-lexical", "deep-inlined", "origin-ring",
		"typedef-line", "pointer-line", "huge-array", "strx-bomb", "type-units", "skeletons", "implicit-sizes", "abbrev-tails"}[k]
}

// The abbreviation codes of eighthAbbrev past dwarfAbbrev's abCU and
// abInt, and the forms and tags they use.
const (
	a8Struct, a8Member, a8Enum, a8Enumerator, a8Subroutine, a8Param, a8Typedef, a8Pointer = 30, 31, 32, 33, 34, 35, 36, 37
	a8Func, a8Lexical, a8Inlined, a8Spec, a8Array, a8Subrange, a8Leaf, a8Var              = 38, 39, 40, 41, 42, 43, 44, 45

	formData4, formUdata, formFlagPresent, formSecOffset, formStrx4, formRefSig8, formImplicit = 0x06, 0x0f, 0x19, 0x17, 0x28, 0x20, 0x21
)

// eighthAbbrev is the .debug_abbrev of the DWARF 4 shapes.
func eighthAbbrev() []byte {
	var b []byte
	add := func(code, tag byte, children bool, attrs ...byte) { b = appendAbbrev(b, code, tag, children, attrs...) }
	name, typ := []byte{0x03, formString}, []byte{0x49, formRef4}
	add(abCU, 0x11, true, 0x03, formString, 0x13, formData2)
	add(abInt, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
	add(a8Struct, 0x13, true, 0x03, formString, 0x0b, formData4)
	add(a8Member, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x38, formData4)
	add(a8Enum, 0x04, true, 0x03, formString, 0x0b, formData1, 0x49, formRef4)
	add(a8Enumerator, 0x28, false, 0x03, formString, 0x1c, formData4)
	add(a8Subroutine, 0x15, true, typ...)
	add(a8Param, 0x05, false, typ...)
	add(a8Typedef, 0x16, false, append(name, typ...)...)
	add(a8Pointer, 0x0f, false, 0x0b, formData1, 0x49, formRef4)
	add(a8Func, 0x2e, true, 0x03, formString, 0x3f, formFlagPresent, 0x49, formRef4, 0x11, 0x01, 0x12, formData8)
	add(a8Lexical, 0x0b, true)
	add(a8Inlined, 0x1d, true, 0x31, formRef4)
	add(a8Spec, 0x2e, true, 0x31, formRef4, 0x47, formRef4, 0x11, 0x01, 0x12, formData8)
	add(a8Array, 0x01, true, typ...)
	add(a8Subrange, 0x21, false, 0x49, formRef4, 0x2f, formData4)
	add(a8Leaf, 0x13, true, 0x03, formString, 0x0b, formData1)
	add(a8Var, 0x34, false, 0x03, formString, 0x49, formRef4)
	return append(b, 0)
}

// BuildDWARF8 returns the shape k with n (n >= 1) as its size.
func BuildDWARF8(k DWARF8Shape, n int) []byte {
	switch k {
	case StrxBomb, TypeUnits, Skeletons, ImplicitSizes:
		return buildDWARF5(k, n)
	case AbbrevTails:
		return buildAbbrevTails(n)
	}
	le := binary.LittleEndian
	body := func(b []byte) []byte {
		start := len(b)
		switch k {
		case WideStruct:
			b = le.AppendUint32(append(b, a8Struct, 's', 0), uint32(4*n))
			for i := range n {
				b = le.AppendUint32(ref4(append(b, a8Member, 'm', 0), unitIntOff), uint32(4*i))
			}
			b = append(b, 0)
		case WideEnum:
			b = ref4(append(b, a8Enum, 'e', 0, 4), unitIntOff)
			for i := range n {
				b = le.AppendUint32(append(append(b, a8Enumerator), fmt.Sprintf("E%d\x00", i)...), uint32(i))
			}
			b = append(b, 0)
		case ManyParams:
			sub := uint32(len(b))
			b = ref4(append(b, a8Subroutine), unitIntOff)
			for range n {
				b = ref4(append(b, a8Param), unitIntOff)
			}
			b = append(b, 0)
			ptr := uint32(len(b))
			b = ref4(append(b, a8Pointer, 8), sub)
			b = ref4(append(b, a8Typedef, 'f', 0), ptr)
		case DeepLexical, DeepInlined:
			fn := uint32(len(b))
			b = le.AppendUint64(le.AppendUint64(ref4(append(b, a8Func, 'f', 0), unitIntOff), 0x1000), 16)
			for range n {
				if k == DeepLexical {
					b = append(b, a8Lexical, a8Leaf, 's', 0, 4, 0)
				} else {
					b = ref4(append(b, a8Inlined), fn)
				}
			}
			b = append(b, make([]byte, n+1)...)
		case OriginRing:
			offs := make([]uint32, n)
			for pass := range 2 {
				b = b[:start]
				for i := range n {
					offs[i] = uint32(len(b))
					next := offs[(i+1)%n]
					if pass == 0 {
						next = 0
					}
					b = ref4(ref4(append(b, a8Spec), next), next)
					b = append(le.AppendUint64(le.AppendUint64(b, uint64(0x1000+16*i)), 16), 0)
				}
			}
		case TypedefLine, PointerLine:
			for i := range n {
				next := uint32(len(b)) + 7
				if k == PointerLine {
					next = uint32(len(b)) + 6
				}
				if i == n-1 {
					next = unitIntOff
				}
				if k == TypedefLine {
					b = ref4(append(b, a8Typedef, 't', 0), next)
				} else {
					b = ref4(append(b, a8Pointer, 8), next)
				}
			}
			b = ref4(append(b, a8Var, 'v', 0), uint32(start))
		case HugeArray:
			arr := uint32(len(b))
			b = ref4(append(b, a8Array), unitIntOff)
			for range n {
				b = le.AppendUint32(ref4(append(b, a8Subrange), unitIntOff), 0xfffffffe)
			}
			b = ref4(append(b, 0, a8Var, 'a', 0), arr)
		}
		return b
	}
	abbrev := eighthAbbrev()
	dwarfUnit(nil, body) // offsets are relative to the unit: the same either way
	return debugELFSections(elfSection{".debug_abbrev", abbrev}, elfSection{".debug_info", dwarfUnit(nil, body)})
}

// elfSection is one section of debugELFSections' file.
type elfSection struct {
	name string
	data []byte
}

// debugELFSections returns a little-endian ELF64 x86-64 relocatable file
// of secs, then a symbol table of the null symbol alone (pahole 1.30
// crashes on an object without one) and the section names.
func debugELFSections(secs ...elfSection) []byte {
	type header struct {
		name, typ, link, info uint32
		off, size, entsize    int
	}
	secs = append(secs, elfSection{".symtab", make([]byte, 24)}, elfSection{".strtab", []byte{0}}, elfSection{".shstrtab", nil})
	shstr := []byte{0}
	hs := make([]header, len(secs))
	for i, s := range secs {
		hs[i].name = uint32(len(shstr))
		shstr = append(append(shstr, s.name...), 0)
		hs[i].typ = 1 // SHT_PROGBITS
	}
	n := len(secs)
	secs[n-1].data = shstr
	hs[n-3].typ, hs[n-3].link, hs[n-3].info, hs[n-3].entsize = 2, uint32(n-1), 1, 24 // .symtab: its names in .strtab
	hs[n-2].typ, hs[n-1].typ = 3, 3
	var out bytes.Buffer
	out.Write(make([]byte, 64))
	for i, s := range secs {
		for out.Len()%8 != 0 {
			out.WriteByte(0)
		}
		hs[i].off, hs[i].size = out.Len(), len(s.data)
		out.Write(s.data)
	}
	for out.Len()%8 != 0 {
		out.WriteByte(0)
	}
	shoff := out.Len()
	le := binary.LittleEndian
	out.Write(make([]byte, 64))
	for _, h := range hs {
		var b [64]byte
		le.PutUint32(b[0:], h.name)
		le.PutUint32(b[4:], h.typ)
		le.PutUint64(b[24:], uint64(h.off))
		le.PutUint64(b[32:], uint64(h.size))
		le.PutUint32(b[40:], h.link)
		le.PutUint32(b[44:], h.info)
		le.PutUint64(b[48:], 1)
		le.PutUint64(b[56:], uint64(h.entsize))
		out.Write(b[:])
	}
	data := out.Bytes()
	putELFHeader(data, 62, shoff) // EM_X86_64
	le.PutUint16(data[60:], uint16(n+1))
	le.PutUint16(data[62:], uint16(n))
	return data
}

// dwarf5Unit appends a DWARF 5 unit of type ut (32-bit, 8-byte
// addresses) whose header has extra (a signature, a type offset, a DWO
// id) and whose DIEs body appends; offsets in body are from the unit's
// start, whose header is 12+len(extra) bytes.
func dwarf5Unit(dst []byte, ut byte, extra []byte, body func(b []byte) []byte) []byte {
	start := len(dst)
	dst = append(append(dst, 0, 0, 0, 0, 5, 0, ut, 8, 0, 0, 0, 0), extra...)
	dst = append(body(dst), 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// buildDWARF5 builds the DWARF 5 shapes of BuildDWARF8.
func buildDWARF5(k DWARF8Shape, n int) []byte {
	le := binary.LittleEndian
	var ab, info, stroffs []byte
	add := func(code, tag byte, children bool, attrs ...byte) {
		ab = appendAbbrev(ab, code, tag, children, attrs...)
	}
	switch k {
	case StrxBomb:
		add(1, 0x11, true, 0x03, formString, 0x13, formData2, 0x72, formSecOffset)
		add(2, 0x24, false, 0x03, formStrx4, 0x3e, formData1, 0x0b, formData1)
		add(3, 0x16, false, 0x03, formStrx4, 0x49, formRef4)
		info = dwarf5Unit(nil, 1, nil, func(b []byte) []byte {
			b = le.AppendUint32(append(b, 1, 'c', 0, langC99, 0), 0xfffffff0)
			intOff := uint32(len(b))
			b = append(le.AppendUint32(append(b, 2), 0xffffffff), 5, 4)
			for i := range n {
				b = ref4(le.AppendUint32(append(b, 3), uint32(1<<30+i)), intOff)
			}
			return b
		})
		// A .debug_str_offsets header claiming 4 GiB.
		stroffs = []byte{0xef, 0xff, 0xff, 0xff, 5, 0, 0, 0}
	case TypeUnits:
		add(1, 0x11, true, 0x03, formString, 0x13, formData2)
		add(2, 0x41, true, 0x13, formData2)
		add(3, 0x13, true, 0x03, formString, 0x0b, formData1)
		add(4, 0x0d, false, 0x03, formString, 0x49, formRefSig8, 0x38, formData1)
		add(5, 0x34, false, 0x03, formString, 0x49, formRefSig8)
		const typeOff = 12 + 12 + 3 // header, unit DIE
		for i := range n {
			extra := le.AppendUint32(le.AppendUint64(nil, uint64(0x5167_0000+i)), typeOff)
			info = dwarf5Unit(info, 2, extra, func(b []byte) []byte {
				b = append(b, 2, langC99, 0)
				b = append(b, 3, 's', 0, 8, 4, 'm', 0)
				return append(le.AppendUint64(b, uint64(0x5167_0000+(i+1)%n)), 0, 0)
			})
		}
		info = dwarf5Unit(info, 1, nil, func(b []byte) []byte {
			return le.AppendUint64(append(b, 1, 'c', 0, langC99, 0, 5, 'v', 0), 0x5167_0000)
		})
	case Skeletons:
		add(1, 0x4a, false, 0x76, formString, 0x1b, formString) // DW_AT_dwo_name, DW_AT_comp_dir
		for i := range n {
			info = dwarf5Unit(info, 4, le.AppendUint64(nil, uint64(i)), func(b []byte) []byte {
				return append(b, fmt.Sprintf("\x01u%d.dwo\x00/nowhere\x00", i)...)
			})
		}
	case ImplicitSizes:
		add(1, 0x11, true, 0x03, formString, 0x13, formData2)
		add(2, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
		ab = appendSleb(append(ab, 3, 0x13, 1, 0x03, formString, 0x0b, formImplicit), -1<<62)
		ab = append(ab, 0, 0)
		ab = append(ab, 4, 0x0d, 0, 0x03, formString, 0x49, formRef4, 0x38, formImplicit)
		ab = appendSleb(ab, 1<<62)
		ab = append(ab, 0, 0)
		info = dwarf5Unit(nil, 1, nil, func(b []byte) []byte {
			b = append(b, 1, 'c', 0, langC99, 0)
			intOff := uint32(len(b))
			b = append(b, 2, 'i', 'n', 't', 0, 5, 4)
			for range n {
				b = append(ref4(append(b, 3, 's', 0, 4, 'm', 0), intOff), 0)
			}
			return b
		})
	}
	secs := []elfSection{{".debug_abbrev", append(ab, 0)}, {".debug_info", info}}
	if stroffs != nil {
		secs = append(secs, elfSection{".debug_str_offsets", stroffs}, elfSection{".debug_str", []byte("\x00int\x00")})
	}
	return debugELFSections(secs...)
}

// appendSleb appends v as a signed LEB128.
func appendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// RetagDWARF returns data, an ELF object with DWARF, with the tag of the
// nth (from 0) abbreviation whose tag is from changed to to (one-byte
// tags), and whether there was such an abbreviation: every DIE of that
// abbreviation changes kind, its attributes and children kept.
func RetagDWARF(data []byte, from, to byte, nth int) ([]byte, bool) {
	s, err := findSections(data)
	if err != nil || s.abbrev[1] == 0 {
		return nil, false
	}
	out := bytes.Clone(data)
	ab := out[s.abbrev[0] : s.abbrev[0]+s.abbrev[1]]
	for i := 0; i < len(ab); {
		code, j, ok := uleb(ab, i)
		if !ok {
			break
		}
		if code == 0 {
			i = j
			continue
		}
		table, _ := parseAbbrevs(ab, i)
		a := table[code]
		if a == nil {
			break
		}
		if a.tagSize == 1 && ab[a.tagPos] == from {
			if nth == 0 {
				ab[a.tagPos] = to
				return out, true
			}
			nth--
		}
		i = a.end
	}
	return nil, false
}

// SelfRef returns data, an ELF object with DWARF, with the DW_AT_type
// (DW_FORM_ref4) of the nth (from 0) DIE that has one pointed at that
// DIE: a type of itself.
func SelfRef(data []byte, nth int) ([]byte, bool) {
	return retype(data, func(off int) (int, bool) {
		nth--
		return off, nth < 0
	})
}

// PointRef returns data, an ELF object with DWARF, with the DW_AT_type
// (DW_FORM_ref4) of the DIE at .debug_info offset die pointed at the DIE
// at offset target, and whether that DIE has such an attribute.
func PointRef(data []byte, die, target int) ([]byte, bool) {
	return retype(data, func(off int) (int, bool) { return target, off == die })
}

// retype calls choose with the offset of each DIE that has a DW_AT_type
// of DW_FORM_ref4, in order, and points the first one it chooses at the
// offset it returns.
func retype(data []byte, choose func(off int) (target int, ok bool)) ([]byte, bool) {
	s, err := findSections(data)
	if err != nil || s.info[1] == 0 {
		return nil, false
	}
	out := bytes.Clone(data)
	info := out[s.info[0] : s.info[0]+s.info[1]]
	d := parseDWARF(info, out[s.abbrev[0]:s.abbrev[0]+s.abbrev[1]], infoRelocs(out, s))
	for _, a := range d.attrs {
		if a.at != 0x49 || a.form != 0x13 {
			continue
		}
		x := d.dies[a.die]
		if target, ok := choose(x.off); ok {
			binary.LittleEndian.PutUint32(info[a.pos:], uint32(target-d.units[x.unit].off))
			return out, true
		}
	}
	return nil, false
}

// buildAbbrevTails builds the AbbrevTails shape: declaration i (code i+1)
// is a compile unit with a name, and unit i, whose table starts at
// declaration i, is that compile unit named "c", without children. A
// reader that reads a table whole reads n-i declarations for unit i;
// one that reads declarations until it finds the code (libdw) reads one.
func buildAbbrevTails(n int) []byte {
	var ab []byte
	offs := make([]uint32, n)
	for i := range n {
		offs[i] = uint32(len(ab))
		ab = binary.AppendUvarint(ab, uint64(i+1))
		ab = append(ab, 0x11, 0, 0x03, formString, 0x13, formData2, 0, 0)
	}
	ab = append(ab, 0)
	var info []byte
	for i := range n {
		start := len(info)
		info = binary.LittleEndian.AppendUint32(append(info, 0, 0, 0, 0, 4, 0), offs[i])
		info = append(binary.AppendUvarint(append(info, 8), uint64(i+1)), 'c', 0, langC99, 0)
		binary.LittleEndian.PutUint32(info[start:], uint32(len(info)-start-4))
	}
	return debugELFSections(elfSection{".debug_abbrev", ab}, elfSection{".debug_info", info})
}
