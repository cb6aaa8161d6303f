package dwarf2btf

// pahole 1.30 leaves out (consistent_func) a function one of whose first
// parameters, by its location, does not arrive in the register the ABI
// gives it (dwarf_loader.c's parameter__reg, parameter__new and
// cu__resolve_func_ret_types_optimized). This reads those locations as
// libdw's dwarf_getlocations hands them to pahole: one expression, or the
// expressions of a location list in order.

// DWARF expression and location list codes used here.
const (
	opReg0          = 0x50
	opReg31         = 0x6f
	opStackValue    = 0x9f
	opEntryValue    = 0xa3
	opGNUEntryValue = 0xf3

	lleEndOfList    = 0x00
	lleBaseAddressx = 0x01
	lleStartxEndx   = 0x02
	lleStartxLength = 0x03
	lleOffsetPair   = 0x04
	lleBaseAddress  = 0x06
	lleStartEnd     = 0x07
	lleStartLength  = 0x08
	lleGNUViewPair  = 0x09
)

// maxLocations bounds the entries of one location list read here.
const maxLocations = 1 << 16

// registerParams returns the DW_OP_regN of the registers an ELF
// machine's ABI passes the first parameters in, as pahole's
// arch__set_register_params; nil where pahole knows none.
func registerParams(machine uint16) []uint8 {
	switch machine {
	case 62: // EM_X86_64: rdi, rsi, rdx, rcx, r8, r9
		return []uint8{opReg0 + 5, opReg0 + 4, opReg0 + 1, opReg0 + 2, opReg0 + 8, opReg0 + 9}
	case 22: // EM_S390
		return []uint8{opReg0 + 2, opReg0 + 3, opReg0 + 4, opReg0 + 5, opReg0 + 6}
	case 40, 183: // EM_ARM, EM_AARCH64
		return []uint8{opReg0, opReg0 + 1, opReg0 + 2, opReg0 + 3, opReg0 + 4, opReg0 + 5, opReg0 + 6, opReg0 + 7}
	}
	return nil
}

// unexpectedReg tells whether formal parameter x, the idx-th of its
// function, has a location in a register other than the one the ABI
// passes it in (parameter__new's unexpected_reg).
func (r *unitReader) unexpectedReg(x *die, idx int) bool {
	regs := r.d.regParams
	if idx >= len(regs) || !x.present(slotLocation) {
		return false
	}
	want := int(regs[idx])
	got := r.paramReg(&x.attrs[slotLocation], want)
	return got >= 0 && got != want
}

// paramReg is pahole's parameter__reg: the register of the first
// location when it is a DW_OP_regN, or of a DW_OP_entry_value(DW_OP_regN)
// in any location, stopping at the one that is want; -1 if none.
func (r *unitReader) paramReg(v *attrVal, want int) int {
	ret := -1
	n := 0
	r.locations(v, func(expr []byte) bool {
		loc := n
		n++
		atom, nops, operand, ok := r.inspectExpr(expr)
		if !ok {
			return false
		}
		if nops != 1 {
			return true
		}
		switch {
		case atom >= opReg0 && atom <= opReg31:
			if loc != 0 {
				return true
			}
			ret = int(atom)
		case atom == opEntryValue || atom == opGNUEntryValue:
			a, k, _, ok := r.inspectExpr(operand)
			if !ok || k != 1 {
				return true
			}
			ret = int(a)
		default:
			return true
		}
		return ret != want
	})
	return ret
}

// inspectExpr parses expr as libdw does and returns its first operation,
// the number of operations (not counting a DW_OP_stack_value that ends an
// expression of more than one), and the block operand of a first
// DW_OP_entry_value. ok is false when libdw could not parse it.
func (r *unitReader) inspectExpr(expr []byte) (atom byte, nops int, operand []byte, ok bool) {
	c := cursor{b: expr, order: r.d.order}
	last := byte(0)
	for c.pos < uint64(len(expr)) {
		op := c.u8()
		b := r.skipOperands(&c, op)
		if c.err != nil {
			return 0, 0, nil, false
		}
		if nops == 0 {
			atom, operand = op, b
		}
		last = op
		nops++
	}
	if nops > 1 && last == opStackValue {
		nops--
	}
	return atom, nops, operand, true
}

// skipOperands reads the operands of op, returning a block operand, and
// fails the cursor on an operation libdw does not know.
func (r *unitReader) skipOperands(c *cursor, op byte) []byte {
	off := 4
	if r.u.dwarf64 {
		off = 8
	}
	switch {
	case op >= 0x30 && op <= 0x6f, op == 0x06, op >= 0x12 && op <= 0x14, op >= 0x16 && op <= 0x22,
		op >= 0x24 && op <= 0x27, op >= 0x29 && op <= 0x2e, op == 0x96, op == 0x97, op == 0x9b, op == 0x9c,
		op == 0x9f, op == 0xe0, op == 0xf0:
		return nil
	case op >= 0x70 && op <= 0x8f, op == 0x11, op == 0x91: // bregN, consts, fbreg
		c.sleb()
	case op == 0x10, op == 0x23, op == 0x90, op == 0x93, op == 0xa1, op == 0xa2, op == 0xa8, op == 0xa9,
		op == 0xf7, op == 0xf9, op == 0xfb, op == 0xfc:
		c.uleb()
	case op == 0x03:
		c.take(uint64(r.u.addrSize))
	case op == 0x08, op == 0x09, op == 0x15, op == 0x94, op == 0x95:
		c.take(1)
	case op == 0x0a, op == 0x0b, op == 0x28, op == 0x2f, op == 0x98:
		c.take(2)
	case op == 0x0c, op == 0x0d, op == 0x99, op == 0xfa:
		c.take(4)
	case op == 0x0e, op == 0x0f:
		c.take(8)
	case op == 0x9a, op == 0xfd:
		c.take(uint64(off))
	case op == 0x92:
		c.uleb()
		c.sleb()
	case op == 0x9d, op == 0xa5, op == 0xf5:
		c.uleb()
		c.uleb()
	case op == 0xa0, op == 0xf2:
		c.take(uint64(off))
		c.sleb()
	case op == 0x9e, op == 0xa3, op == 0xf3:
		return c.take(c.uleb())
	case op == 0xa4, op == 0xf4:
		c.uleb()
		return c.take(uint64(c.u8()))
	case op == 0xa6, op == 0xa7, op == 0xf6:
		c.take(1)
		c.uleb()
	default:
		c.err = errFormat(c.pos, "DWARF operation %#x", op)
	}
	return nil
}

// locations calls fn with each location expression of a DW_AT_location,
// in order, until fn returns false, as libdw's dwarf_getlocations yields
// them: a block is one expression; a location list (DW_FORM_sec_offset,
// DW_FORM_loclistx) gives one per range entry. It stops quietly at what
// it cannot read, as pahole's loop stops at an error.
func (r *unitReader) locations(v *attrVal, fn func(expr []byte) bool) {
	switch v.class {
	case classBlock:
		fn(v.b)
		return
	case classOffset:
		r.loclist(v.u, fn)
	case classLoclistx:
		off := uint64(4)
		if r.u.dwarf64 {
			off = 8
		}
		ll := r.d.loclists
		pos := r.loclistsBase + v.u*off
		if v.u > uint64(len(ll)) || pos > uint64(len(ll)) || uint64(len(ll))-pos < off {
			return
		}
		c := cursor{b: ll, pos: pos, order: r.d.order}
		r.loclist(r.loclistsBase+c.offset(r.u.dwarf64), fn)
	}
}

// loclist reads the location list at off: .debug_loclists's entries
// (DWARF 5) or .debug_loc's (DWARF 2-4).
func (r *unitReader) loclist(off uint64, fn func([]byte) bool) {
	if r.u.version < 5 {
		r.loclist4(off, fn)
		return
	}
	c := cursor{b: r.d.loclists, pos: off, order: r.d.order}
	if off > uint64(len(c.b)) {
		return
	}
	// How far the unit's lists were read, for run.releaseLoc.
	defer func() { r.locMax = max(r.locMax, c.pos) }()
	addr := uint64(r.u.addrSize)
	for range maxLocations {
		code := c.u8()
		if c.err != nil {
			return
		}
		switch code {
		case lleEndOfList:
			return
		case lleBaseAddressx:
			c.uleb()
			continue
		case lleBaseAddress:
			c.take(addr)
			continue
		case lleGNUViewPair:
			c.uleb()
			c.uleb()
			continue
		case lleStartxEndx, lleStartxLength, lleOffsetPair:
			c.uleb()
			c.uleb()
		case lleStartEnd:
			c.take(2 * addr)
		case lleStartLength:
			c.take(addr)
			c.uleb()
		default:
			return
		}
		expr := c.take(c.uleb())
		if c.err != nil || !fn(expr) {
			return
		}
	}
}

// loclist4 reads a .debug_loc list: address pairs, each but base address
// selections followed by a 2-byte length and the expression.
func (r *unitReader) loclist4(off uint64, fn func([]byte) bool) {
	c := cursor{b: r.d.loc, pos: off, order: r.d.order}
	if off > uint64(len(c.b)) || r.u.addrSize != 8 && r.u.addrSize != 4 {
		return
	}
	for range maxLocations {
		var begin, end uint64
		if r.u.addrSize == 8 {
			begin, end = c.u64(), c.u64()
		} else {
			begin, end = uint64(c.u32()), uint64(c.u32())
		}
		if c.err != nil || begin == 0 && end == 0 {
			return
		}
		if r.u.addrSize == 8 && begin == ^uint64(0) || r.u.addrSize == 4 && begin == 1<<32-1 {
			continue
		}
		expr := c.take(uint64(c.u16()))
		if c.err != nil || !fn(expr) {
			return
		}
	}
}
