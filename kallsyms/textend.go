package kallsyms

// Without Options.Data a table holds only text symbols, and a symbol would
// end where the next one starts: an address in rodata, after _etext, would
// resolve to _etext+0x... . So the table also records where each run of
// text ends, as an entry that starts a block and whose header has endFlag:
//
//   - in vmlinux, the symbols _etext and _einittext, which the kernel
//     itself treats as the ends of its text (is_kernel_text,
//     is_kernel_inittext in include/linux/kallsyms.h); they keep their
//     names and are listed like other symbols;
//   - the first non-text symbol above a run of text symbols, when no text
//     symbol shares its address: an anonymous entry with an empty name,
//     which All, LookupName and the symbol counts skip.
//
// A lookup that lands on such an entry returns ErrNotText.

// textEnds is a builder's state for finding the ends of text runs. With
// Options.Data it stays unused.
type textEnds struct {
	stops   chunks[uint64] // every non-text address, in input order, for resorted
	any     bool           // a text symbol was added
	last    uint64         // the highest text address added
	maxStop uint64         // the highest non-text address seen
	pend    bool           // stopAt is the lowest non-text address above last
	stopAt  uint64
	ended   bool // the last entry pushed is an end of text
	late    bool // text and non-text addresses came out of order: resort
	next    bool // the entry being pushed is an end of text
	named   bool // _etext and _einittext end text (vmlinux without Data)
	anon    int  // anonymous ends pushed
}

// seen notes a text symbol at addr.
func (e *textEnds) seen(addr uint64) {
	if addr < e.maxStop {
		e.late = true
	}
	e.any, e.ended, e.last = true, false, max(e.last, addr)
}

// isTextEnd reports whether a vmlinux symbol called name ends a run of
// text: _etext or _einittext.
func isTextEnd(name []byte) bool {
	return len(name) >= 6 && name[1] == 'e' && (string(name) == "_etext" || string(name) == "_einittext")
}

// stop records a non-text symbol at addr, in file order, for a builder
// without Options.Data: the text symbol below addr ends there.
func (b *builder) stop(addr uint64) {
	e := &b.text
	e.stops.add(addr)
	e.maxStop = max(e.maxStop, addr)
	switch {
	case !e.any:
	case addr < e.last:
		e.late = true
	case e.ended || addr == e.last:
	case !e.pend || addr < e.stopAt:
		e.pend, e.stopAt = true, addr
	}
}

// endRun pushes the pending end of text before a text symbol at addr >=
// its address, or drops it when that symbol starts at the same address.
func (b *builder) endRun(addr uint64) {
	b.text.pend = false
	if addr > b.text.stopAt {
		b.pushAnonEnd(b.text.stopAt)
	}
}

// closeText pushes the pending end of text after the last text symbol.
func (b *builder) closeText() {
	if b.text.pend {
		b.text.pend = false
		b.pushAnonEnd(b.text.stopAt)
	}
}

// pushAnonEnd pushes an anonymous end of text at addr, above every entry
// and the held-back __pfx_ symbol.
func (b *builder) pushAnonEnd(addr uint64) {
	b.flush()
	b.text.next, b.text.ended = true, true
	b.text.anon++
	b.push(addr, 0, nil, 0)
}

// pushNamedEnd pushes _etext or _einittext: an end of text unless an entry
// has its address already (the first symbol at an address decides).
func (b *builder) pushNamedEnd(addr uint64, typ byte, name []byte) {
	if b.addrs.len() == 0 || addr > b.addrs.last() {
		b.text.next, b.text.ended = true, true
	}
	b.push(addr, typ, name, 0)
}
