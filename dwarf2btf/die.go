package dwarf2btf

import "encoding/binary"

// attrSpec is one attribute of an abbreviation, or, with skip set, a run
// of attributes the encoder does not read whose forms have a fixed size in
// the unit's format: skip is their total size, stepped over in one go.
type attrSpec struct {
	slot     uint8
	fast     uint8 // how next decodes it in place, or fastNone
	skip     uint16
	form     uint16
	implicit int64
}

// The forms next decodes in place, without calling form: the most common
// ones, in a little-endian unit of 32-bit DWARF.
const (
	fastNone = iota
	fastRef4
	fastStrp4
	fastData1
	fastData2
	fastFlagPresent
	fastImplicitConst
)

// fastForm is the fast decoding of form in u's format, fastNone if there
// is none.
func fastForm(form uint16, u *unitHeader, little bool) uint8 {
	switch form {
	case formData1:
		return fastData1
	case formFlagPresent:
		return fastFlagPresent
	case formImplicitConst:
		return fastImplicitConst
	}
	if !little {
		return fastNone
	}
	switch {
	case form == formRef4:
		return fastRef4
	case form == formStrp && !u.dwarf64:
		return fastStrp4
	case form == formData2:
		return fastData2
	}
	return fastNone
}

// abbrev is one abbreviation declaration.
type abbrev struct {
	tag      uint16
	children bool
	attrs    []attrSpec
}

// abbrevTable maps abbreviation codes to declarations; codes are nearly
// always small and dense, so a slice indexed by code serves them.
//
// A table is read lazily, as libdw (pahole's reader) reads it
// (__libdw_findabbrev): a code not yet found reads declarations up to
// it, and no further. A unit reads only the declarations up to the last
// code it uses, so units whose tables are tails of one long table cost
// what their DIEs use, not the table's length each (hostile.AbbrevTails).
type abbrevTable struct {
	dense  []abbrev
	sparse map[uint64]*abbrev

	// The reading: c at the next declaration, n declarations read, u
	// the format the forms are sized in, all the attributes' storage
	// (a declaration's attributes are one slice of it), err what
	// stopped the reading early. done once the terminator, the end of
	// the section or an error is reached.
	c    cursor
	n    int
	u    unitHeader
	all  []attrSpec
	err  error
	done bool
}

// abbrevKey names a parsed abbreviation table: its offset and the format
// of the units it was parsed for, which decides the forms' sizes.
type abbrevKey struct {
	off    uint64
	format uint16
}

// unitFormat is what fixes the size of a unit's offset and address forms.
func unitFormat(u *unitHeader) uint16 {
	f := uint16(u.addrSize)
	if u.dwarf64 {
		f |= 1 << 8
	}
	if u.version <= 2 {
		f |= 1 << 9
	}
	return f
}

// maxAbbrevs bounds the declarations of one table.
const maxAbbrevs = 1 << 20

// get returns the declaration of code, reading the table up to it if it
// is not read yet, or nil if the table has none. next looks in dense
// first, in place: get is too large to inline.
func (t *abbrevTable) get(code uint64) *abbrev {
	for {
		if code < uint64(len(t.dense)) && t.dense[code].tag != 0 {
			return &t.dense[code]
		}
		if a := t.sparse[code]; a != nil || t.done {
			return a
		}
		t.read()
	}
}

// fixedSize is the size of a value of form in unit u's format, false for
// the forms whose size the value itself tells (LEB128, strings, blocks,
// indirect) and unknown forms.
func fixedSize(form uint16, u *unitHeader) (int, bool) {
	off := 4
	if u.dwarf64 {
		off = 8
	}
	switch form {
	case formFlagPresent, formImplicitConst:
		return 0, true
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1, true
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2, true
	case formStrx3, formAddrx3:
		return 3, true
	case formData4, formRef4, formStrx4, formAddrx4, formRefSup4:
		return 4, true
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8, true
	case formData16:
		return 16, true
	case formAddr:
		return int(u.addrSize), true
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		return off, true
	case formRefAddr:
		if u.version <= 2 {
			return int(u.addrSize), true
		}
		return off, true
	}
	return 0, false
}

// parseAbbrevs starts the table at off of .debug_abbrev, for units of
// u's format: the attributes the encoder does not read and whose size is
// fixed become skips, merged with their neighbours. Its declarations are
// read as get asks for them.
func (d *dwarfData) parseAbbrevs(off uint64, u *unitHeader) (*abbrevTable, error) {
	if off > uint64(len(d.abbrev)) {
		return nil, errFormat(off, "abbreviation table offset beyond .debug_abbrev")
	}
	return &abbrevTable{c: cursor{b: d.abbrev, pos: off, order: d.order}, u: *u}, nil
}

// Attribute storage comes in chunks that double from minAttrChunk up to
// maxAttrChunk specs: earlier declarations keep their chunk, so a chunk
// is never copied whole, and at most one is part empty.
const (
	minAttrChunk = 64
	maxAttrChunk = 1 << 14
)

// read reads the next declaration and returns its code, 0 once the table
// is done (its terminator, the end of the section, or an error, kept in
// err).
func (t *abbrevTable) read() uint64 {
	code, err := t.decl()
	if code == 0 || err != nil {
		t.done, t.err = true, err
		return 0
	}
	return code
}

// decl reads one declaration into the table: code 0 at the terminator.
func (t *abbrevTable) decl() (uint64, error) {
	c, u := &t.c, &t.u
	code := c.uleb()
	if code == 0 || c.err != nil {
		return 0, c.err
	}
	if t.n >= maxAbbrevs {
		return 0, errFormat(c.pos, "too many abbreviations")
	}
	t.n++
	a := abbrev{}
	tag := c.uleb()
	if tag > 0xffff || tag == 0 {
		return 0, errFormat(c.pos, "abbreviation tag %#x", tag)
	}
	a.tag = uint16(tag)
	a.children = c.u8() != 0
	little := c.order == binary.LittleEndian
	lo := len(t.all)
	for c.err == nil {
		at, form := c.uleb(), c.uleb()
		if at == 0 && form == 0 {
			break
		}
		if form > 0xffff {
			return 0, errFormat(c.pos, "form %#x", form)
		}
		s := attrSpec{slot: attrSlot(at), form: uint16(form)}
		if form == formImplicitConst {
			s.implicit = c.sleb()
		}
		if s.slot != slotNone && declares(t.all[lo:], s.slot) {
			// An attribute listed twice: libdw's dwarf_attr,
			// which pahole reads with, finds its first one, so
			// the later ones are only skipped.
			s.slot = slotNone
		}
		if s.slot != slotNone {
			s.fast = fastForm(s.form, u, little)
		}
		if len(t.all) == cap(t.all) {
			// A new chunk, with this declaration's attributes so far.
			size := min(max(minAttrChunk, 2*cap(t.all)), maxAttrChunk)
			size = max(size, 2*(len(t.all)-lo)+1)
			t.all = append(make([]attrSpec, 0, size), t.all[lo:]...)
			lo = 0
		}
		t.all = appendSpec(t.all, lo, s, u)
	}
	if c.err != nil {
		return 0, c.err
	}
	a.attrs = t.all[lo:len(t.all):len(t.all)]
	// A code declared twice keeps its first declaration, as libdw
	// does: __libdw_findabbrev stops at the first declaration of the
	// code it looks for. Codes go in the dense slice while it stays
	// within twice the declarations read, so a table of few declarations
	// with large codes is no large slice.
	if code < 1<<14 && code < 2*uint64(t.n)+64 {
		for uint64(len(t.dense)) <= code {
			t.dense = append(t.dense, abbrev{})
		}
		if t.dense[code].tag == 0 && t.sparse[code] == nil {
			t.dense[code] = a
		}
	} else if code >= uint64(len(t.dense)) || t.dense[code].tag == 0 {
		if t.sparse == nil {
			t.sparse = map[uint64]*abbrev{}
		}
		if t.sparse[code] == nil {
			p := new(abbrev)
			*p = a
			t.sparse[code] = p
		}
	}
	return code, nil
}

// declares reports whether the attributes attrs of one declaration
// already fill slot.
func declares(attrs []attrSpec, slot uint8) bool {
	for _, a := range attrs {
		if a.slot == slot {
			return true
		}
	}
	return false
}

// appendSpec appends s to attrs, whose declaration's attributes start at
// lo, as a skip if the encoder does not read it and its size is fixed,
// merged into the declaration's skip before it if there is one.
func appendSpec(attrs []attrSpec, lo int, s attrSpec, u *unitHeader) []attrSpec {
	if s.slot != slotNone {
		return append(attrs, s)
	}
	size, ok := fixedSize(s.form, u)
	switch {
	case !ok:
		return append(attrs, s)
	case size == 0:
		return attrs
	}
	if n := len(attrs); n > lo && attrs[n-1].skip != 0 && int(attrs[n-1].skip)+size <= 0xffff {
		attrs[n-1].skip += uint16(size)
		return attrs
	}
	return append(attrs, attrSpec{skip: uint16(size)})
}

// die is one decoded DIE: its tag and the attributes the encoder reads.
type die struct {
	off      uint32
	tag      uint16
	children bool
	has      uint32 // bit i set: attrs[i] present
	attrs    [numSlots]attrVal
}

func (d *die) present(slot uint8) bool { return d.has&(1<<slot) != 0 }

// unitReader walks the DIEs of one unit.
type unitReader struct {
	d      *dwarfData
	u      unitHeader
	abbrev *abbrevTable
	c      cursor

	strOffsetsBase uint64
	addrBase       uint64
	loclistsBase   uint64
	// locMax is the end of the furthest location list entry read.
	locMax uint64
	// unread takes the attributes next decodes but the encoder does not
	// read.
	unread attrVal
}

func (d *dwarfData) newUnitReader(u unitHeader, cache map[abbrevKey]*abbrevTable) (*unitReader, error) {
	key := abbrevKey{off: u.abbrevOff, format: unitFormat(&u)}
	t := cache[key]
	if t == nil {
		var err error
		if t, err = d.parseAbbrevs(u.abbrevOff, &u); err != nil {
			return nil, err
		}
		if cache != nil {
			cache[key] = t
		}
	}
	r := &unitReader{d: d, u: u, abbrev: t}
	r.c = cursor{b: d.info[:u.end], pos: uint64(u.dieOff), order: d.order, le: d.order == binary.LittleEndian}
	return r, nil
}

// next decodes the next DIE into x. It returns false at a null entry
// (the end of a sibling list), and sets r.c.err on malformed data.
func (r *unitReader) next(x *die) bool {
	// The encoder's hot loop (BenchmarkEncodeFile, BenchmarkWalk).
	c := &r.c
	x.off = uint32(c.pos)
	// The code, nearly always one byte, read in place: uleb is not
	// inlined, and its call was about 20 instructions a DIE.
	var code uint64
	if p := c.pos; p < uint64(len(c.b)) && c.b[p] < 0x80 {
		code, c.pos = uint64(c.b[p]), p+1
	} else {
		code = c.uleb()
	}
	if code == 0 || c.err != nil {
		return false
	}
	var a *abbrev
	if t := r.abbrev; code < uint64(len(t.dense)) && t.dense[code].tag != 0 {
		a = &t.dense[code]
	} else if a = t.get(code); a == nil {
		c.err = r.abbrev.err
		if c.err == nil {
			c.err = errFormat(uint64(x.off), "unknown abbreviation code %d", code)
		}
		return false
	}
	x.tag, x.children = a.tag, a.children
	// The common forms in place, as form decodes them; form for the
	// others, and for values the unit cuts short. The loop keeps the
	// cursor's position, its bytes and the DIE's mask of attributes in
	// locals, synced around the calls, and sets only class, form and u
	// of a value decoded in place (b is read only for the classes that
	// set it, string and block): stored through the pointers, they were
	// reloaded after every store to the DIE, and the whole value's store
	// set b's pointer under the collector's write barrier (BENCH.md,
	// "The instructions of one big encoding").
	b, pos, has := c.b, int(c.pos), uint32(0)
	unitOff := uint64(r.u.off)
	for _, s := range a.attrs {
		if s.slot == slotNone {
			if n := int(s.skip); n != 0 && n <= len(b)-pos {
				pos += n
				continue
			}
			c.pos = uint64(pos)
			if s.skip != 0 {
				c.take(uint64(s.skip))
			} else {
				r.form(&r.unread, s.form, s.implicit, 0)
			}
			pos = int(c.pos)
			continue
		}
		v := &x.attrs[s.slot]
		has |= 1 << s.slot
		switch t := b[pos:]; s.fast {
		case fastRef4:
			if len(t) >= 4 {
				v.class, v.form, v.u = classRef, s.form, unitOff+uint64(binary.LittleEndian.Uint32(t))
				pos += 4
				continue
			}
		case fastStrp4:
			if len(t) >= 4 {
				v.class, v.form, v.u = classStrp, s.form, uint64(binary.LittleEndian.Uint32(t))
				pos += 4
				continue
			}
		case fastData1:
			if len(t) >= 1 {
				v.class, v.form, v.u = classConst, s.form, uint64(t[0])
				pos++
				continue
			}
		case fastData2:
			if len(t) >= 2 {
				v.class, v.form, v.u = classConst, s.form, uint64(binary.LittleEndian.Uint16(t))
				pos += 2
				continue
			}
		case fastFlagPresent:
			v.class, v.form, v.u = classFlag, s.form, 1
			continue
		case fastImplicitConst:
			v.class, v.form, v.u = classConst, s.form, uint64(s.implicit)
			continue
		}
		c.pos = uint64(pos)
		r.form(v, s.form, s.implicit, 0)
		pos = int(c.pos)
	}
	c.pos, x.has = uint64(pos), has
	return c.err == nil
}

// form decodes one attribute value of the given form into v.
func (r *unitReader) form(v *attrVal, form uint16, implicit int64, depth int) {
	c := &r.c
	*v = attrVal{form: form}
	u := &r.u
	switch form {
	case formAddr:
		v.class = classAddr
		if u.addrSize == 8 {
			v.u = c.u64()
		} else {
			v.u = uint64(c.u32())
		}
	case formData1:
		v.class, v.u = classConst, uint64(c.u8())
	case formData2:
		v.class, v.u = classConst, uint64(c.u16())
	case formData4:
		v.class, v.u = classConst, uint64(c.u32())
	case formData8:
		v.class, v.u = classConst, c.u64()
	case formSdata:
		v.class, v.u = classConst, uint64(c.sleb())
	case formUdata:
		v.class, v.u = classConst, c.uleb()
	case formImplicitConst:
		v.class, v.u = classConst, uint64(implicit)
	case formData16:
		v.class = classOther
		c.take(16)
	case formFlag:
		v.class = classFlag
		if c.u8() != 0 {
			v.u = 1
		}
	case formFlagPresent:
		v.class, v.u = classFlag, 1
	case formString:
		v.class, v.b = classString, c.cstring()
	case formStrp:
		// Resolved (its NUL found) only if read: see str.
		v.class, v.u = classStrp, c.offset(u.dwarf64)
	case formLineStrp:
		v.class, v.b = classString, strAt(r.d.lineStr, c.offset(u.dwarf64))
	case formStrx, formGNUStrIndex:
		v.class, v.u = classStrx, c.uleb()
	case formStrx1:
		v.class, v.u = classStrx, uint64(c.u8())
	case formStrx2:
		v.class, v.u = classStrx, uint64(c.u16())
	case formStrx3:
		v.class, v.u = classStrx, uint64(c.u24())
	case formStrx4:
		v.class, v.u = classStrx, uint64(c.u32())
	case formAddrx, formGNUAddrIndex:
		v.class, v.u = classAddrx, c.uleb()
	case formAddrx1:
		v.class, v.u = classAddrx, uint64(c.u8())
	case formAddrx2:
		v.class, v.u = classAddrx, uint64(c.u16())
	case formAddrx3:
		v.class, v.u = classAddrx, uint64(c.u24())
	case formAddrx4:
		v.class, v.u = classAddrx, uint64(c.u32())
	case formRef1:
		v.class, v.u = classRef, uint64(u.off)+uint64(c.u8())
	case formRef2:
		v.class, v.u = classRef, uint64(u.off)+uint64(c.u16())
	case formRef4:
		v.class, v.u = classRef, uint64(u.off)+uint64(c.u32())
	case formRef8:
		v.class, v.u = classRef, uint64(u.off)+c.u64()
	case formRefUdata:
		v.class, v.u = classRef, uint64(u.off)+c.uleb()
	case formRefAddr:
		v.class = classRef
		if u.version <= 2 {
			v.u = uint64(c.u32())
			if u.addrSize == 8 {
				c.pos -= 4
				v.u = c.u64()
			}
		} else {
			v.u = c.offset(u.dwarf64)
		}
	case formRefSig8:
		v.class, v.u = classSig, c.u64()
	case formRefSup4:
		v.class = classOther
		c.u32()
	case formRefSup8:
		v.class = classOther
		c.u64()
	case formSecOffset:
		// DW_AT_str_offsets_base and DW_AT_addr_base (clang's units);
		// location lists, which stay unread.
		v.class, v.u = classOffset, c.offset(u.dwarf64)
	case formStrpSup, formGNURefAlt, formGNUStrpAlt:
		v.class = classOther
		c.offset(u.dwarf64)
	case formLoclistx:
		v.class, v.u = classLoclistx, c.uleb()
	case formRnglistx:
		v.class = classOther
		c.uleb()
	case formBlock1:
		v.class, v.b = classBlock, c.take(uint64(c.u8()))
	case formBlock2:
		v.class, v.b = classBlock, c.take(uint64(c.u16()))
	case formBlock4:
		v.class, v.b = classBlock, c.take(uint64(c.u32()))
	case formBlock, formExprloc:
		v.class, v.b = classBlock, c.take(c.uleb())
	case formIndirect:
		f := c.uleb()
		if depth > 4 || f > 0xffff {
			c.err = errFormat(c.pos, "indirect form %#x", f)
			return
		}
		var imp int64
		if f == formImplicitConst {
			imp = c.sleb()
		}
		r.form(v, uint16(f), imp, depth+1)
	default:
		c.err = errFormat(c.pos, "unknown form %#x", form)
	}
}

// str returns a string attribute's bytes (nil when absent or not a
// string), resolving DW_FORM_strx through .debug_str_offsets.
func (r *unitReader) str(x *die, slot uint8) []byte {
	if !x.present(slot) {
		return nil
	}
	v := &x.attrs[slot]
	switch v.class {
	case classString:
		return v.b
	case classStrp:
		return r.d.strp(v.u)
	case classStrx:
		size := uint64(4)
		if r.u.dwarf64 {
			size = 8
		}
		so := r.d.strOffsets
		pos := r.strOffsetsBase + v.u*size
		if v.u > uint64(len(so)) || pos > uint64(len(so)) || uint64(len(so))-pos < size {
			return nil
		}
		var off uint64
		if size == 8 {
			off = r.d.order.Uint64(so[pos:])
		} else {
			off = uint64(r.d.order.Uint32(so[pos:]))
		}
		return r.d.strp(off)
	}
	return nil
}

// addrx returns entry i of the unit's .debug_addr table.
func (r *unitReader) addrx(i uint64) (uint64, bool) {
	size := uint64(r.u.addrSize)
	a := r.d.addr
	pos := r.addrBase + i*size
	if i > uint64(len(a)) || pos > uint64(len(a)) || uint64(len(a))-pos < size {
		return 0, false
	}
	if size == 8 {
		return r.d.order.Uint64(a[pos:]), true
	}
	return uint64(r.d.order.Uint32(a[pos:])), true
}

// secOffset is the value of a section offset attribute as libdw's
// dwarf_formudata reads it for DW_AT_str_offsets_base and DW_AT_addr_base:
// DW_FORM_sec_offset or a constant.
func secOffset(x *die, slot uint8) (uint64, bool) {
	if !x.present(slot) {
		return 0, false
	}
	switch v := &x.attrs[slot]; v.class {
	case classOffset, classConst:
		return v.u, true
	}
	return 0, false
}

// numeric is pahole's attr_numeric: the value of an address, constant or
// flag attribute, 0 for other forms and when absent.
func numeric(x *die, slot uint8) uint64 {
	if !x.present(slot) {
		return 0
	}
	switch v := &x.attrs[slot]; v.class {
	case classAddr, classConst, classFlag:
		return v.u
	}
	return 0
}

// udata is libdw's dwarf_formudata: ok only for constant forms.
func udata(x *die, slot uint8) (uint64, bool) {
	if !x.present(slot) || x.attrs[slot].class != classConst {
		return 0, false
	}
	return x.attrs[slot].u, true
}

// ref returns a reference attribute's target offset in .debug_info, 0 when
// absent or not a plain reference.
func ref(x *die, slot uint8) uint32 {
	if !x.present(slot) || x.attrs[slot].class != classRef || x.attrs[slot].u >= 1<<32 {
		return 0
	}
	return uint32(x.attrs[slot].u)
}

// memberOffset is pahole's __attr_offset: a constant, or a location
// expression that is DW_OP_plus_uconst or DW_OP_constu N.
func memberOffset(x *die, slot uint8) uint64 {
	v := &x.attrs[slot]
	switch v.class {
	case classConst:
		return v.u
	case classBlock:
		if len(v.b) == 0 {
			return ^uint64(0)
		}
		if v.b[0] == 0x23 || v.b[0] == 0x10 { // DW_OP_plus_uconst, DW_OP_constu
			c := cursor{b: v.b, pos: 1}
			return c.uleb()
		}
		return ^uint64(0)
	}
	return 0
}

// countAhead counts the DIEs of tag t1, and apart those of tag t2, among
// the siblings that follow the DIE x last decoded (x itself not counted),
// without moving the reader: the elements of a container still to come,
// for a table that holds them to be sized once (roomFor). x's own
// children, if it has any, are skipped first. It reads each DIE once
// more; a malformed DIE ends the count, and the loader meets it again
// after. read is how many DIEs it read, end where it stopped reading.
func (r *unitReader) countAhead(x *die, tmp *die, t1, t2 uint16) (n1, n2, read int, end uint64) {
	saved := r.c
	defer func() { r.c = saved }()
	depth := 0
	if x.children {
		depth = 1
	}
	for {
		if !r.next(tmp) {
			if r.c.err != nil || depth == 0 {
				return n1, n2, read, r.c.pos
			}
			depth--
			continue
		}
		read++
		if depth == 0 {
			switch tmp.tag {
			case t1:
				n1++
			case t2:
				n2++
			}
		}
		if tmp.children {
			depth++
		}
	}
}
