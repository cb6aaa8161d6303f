package builder

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// WriteCopy writes to w the bytes that NewSplit(base), CopyAll(s) and
// Marshal(opts) give, without holding them: with base nil, s and its
// bases as standalone BTF; with s's base, s's own types split on it. The
// records go to w one buffer at a time, as they are copied; what stays in
// memory is the string section and its index, or with one input and no
// base only an index of references to the input's strings (refStrings),
// or nothing of them (inPlace).
//
// It reads s twice: once to collect the strings, whose section's size the
// header states before the records, and once to write the records. Errors
// of the copy (a closed Spec, a kind the Builder cannot write, a string
// outside the string sections) come before anything is written; a failed
// write is returned as it is.
//
// A w that can seek and truncate (Rewriter, such as an *os.File open on
// a regular file) is written in one read instead: a placeholder header,
// the records as they are copied (their strings interned as they come),
// the strings, and then the header again in place. The bytes are the
// same; an error may then come after part of the copy is written, which
// the caller discards (as atomicfile does with its temporary file).
func WriteCopy(w io.Writer, s, base *btf.Spec, opts Options) error {
	_, err := writeCopy(w, s, base, opts, false)
	return err
}

// writeCopy is WriteCopy; it also returns how many times it read the
// records of s (for the tests' work count).
// With asELF it is WriteCopyELF.
func writeCopy(w io.Writer, s, base *btf.Spec, opts Options, asELF bool) (int, error) {
	if rw, ok := w.(Rewriter); ok {
		if start, err := rw.Seek(0, io.SeekCurrent); err == nil {
			return writeCopyOnce(rw, start, s, base, opts, asELF)
		}
	}
	return writeCopyTwice(w, s, base, opts, asELF)
}

// writeCopyTwice is writeCopy in two reads of s.
func writeCopyTwice(w io.Writer, s, base *btf.Spec, opts Options, asELF bool) (int, error) {
	c, err := newStreamCopy(s, base, opts)
	if err != nil {
		return 0, err
	}
	defer c.free()
	if asELF {
		err = c.writeELF(w, opts)
	} else {
		err = c.write(w, opts)
	}
	return c.reads, err
}

// Rewriter is an output that WriteCopy can write in one read: it goes
// back to the header once the records and strings are written, and cuts
// what an attempt wrote when it starts again.
type Rewriter interface {
	io.WriteSeeker
	Truncate(size int64) error
}

// writeCopyOnce is WriteCopy to rw, whose offset is start, in one read
// of s. Where the first guess of the string table (the input's section
// in place) turns out wrong only at the end (a string there twice), or a
// name breaks it and no table by reference can take over, the copy starts
// again from start in two reads.
func writeCopyOnce(rw Rewriter, start int64, s, base *btf.Spec, opts Options, asELF bool) (int, error) {
	c, err := prepareStreamCopy(s, base, opts)
	if err != nil {
		return 0, err
	}
	c.oneRead(base)
	if asELF {
		err = c.writeOnceELF(rw, start, opts)
	} else {
		err = c.writeOnce(rw, start, opts)
	}
	c.free()
	if !errors.Is(err, errRedo) && !errors.Is(err, errNotInPlace) {
		return c.reads, err
	}
	if _, err := rw.Seek(start, io.SeekStart); err != nil {
		return c.reads, err
	}
	if err := rw.Truncate(start); err != nil {
		return c.reads, err
	}
	n, err := writeCopyTwice(rw, s, base, opts, asELF)
	return c.reads + n, err
}

// writeOnceELF is writeOnce for the ELF object of writeELF: the BTF is
// written first, after room for the ELF header, and the object around
// it once its size is known, the ELF header over the room left.
func (c *streamCopy) writeOnceELF(rw Rewriter, start int64, opts Options) error {
	at := int64(elfFirstOffset(btfAlign))
	if _, err := rw.Write(make([]byte, at)); err != nil {
		return err
	}
	if err := c.writeOnce(rw, start+at, opts); err != nil {
		return err
	}
	end, err := seekBack(rw, start)
	if err != nil {
		return err
	}
	size := end - start - at
	sec := elfSection{name: ".BTF", typ: elf.SHT_PROGBITS, align: btfAlign, size: int(size),
		fill: func(io.Writer) error { // in place already: over it
			_, err := rw.Seek(size, io.SeekCurrent)
			return err
		}}
	return writeELF(rw, byteOrder(opts), []elfSection{sec})
}

// seekBack moves rw to offset start and returns the offset it was at.
func seekBack(rw io.Seeker, start int64) (int64, error) {
	end, err := rw.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = rw.Seek(start, io.SeekStart)
	}
	return end, err
}

// errRedo ends a one-read copy whose strings in place were not distinct.
var errRedo = errors.New("builder: copy: the input's strings are not distinct")

// writeOnce writes the copy as write does, reading the records once: the
// header is written last, over a placeholder, at offset start of rw.
func (c *streamCopy) writeOnce(rw Rewriter, start int64, opts Options) error {
	b := c.b
	if err := c.numberAll(); err != nil {
		return err
	}
	h, _ := b.header(0, opts)
	order := byteOrder(opts).(binary.AppendByteOrder)
	buf := wire.AppendHeader(make([]byte, 0, flushSize+4096), h, order)
	written, err := c.stream(rw, buf, opts)
	if err != nil {
		return err
	}
	if b.inPlace != nil && !b.inPlace.unique() {
		return errRedo
	}
	c.typeLen = written
	h, _ = b.header(written, opts)
	if err := b.writeTail(rw, h, order, opts.Layout); err != nil {
		return err
	}
	end, err := seekBack(rw, start)
	if err != nil {
		return err
	}
	if _, err := rw.Write(wire.AppendHeader(nil, h, order)); err != nil {
		return err
	}
	_, err = rw.Seek(end, io.SeekStart)
	return err
}

// numberAll numbers every type of c.srcs as collect does for a copy of
// every type: in order, from the Builder's first id.
func (c *streamCopy) numberAll() error {
	n := 0
	for _, src := range c.srcs {
		all := newBitset(int(src.n))
		for i := range all {
			all[i] = ^uint64(0)
		}
		if r := src.n % 64; r != 0 {
			all[len(all)-1] = 1<<r - 1
		}
		src.ids.numbered, src.ids.first, src.ids.every = all, c.b.firstID+btf.TypeID(n), true
		src.ids.prefix, _ = all.ranks()
		n += int(src.n)
	}
	if uint64(c.b.firstID)+uint64(n) > c.b.lastID()+1 {
		return ErrTooManyTypes
	}
	return nil
}

// WriteCopyELF is WriteCopy for the ELF object that MarshalELF writes.
func WriteCopyELF(w io.Writer, s, base *btf.Spec, opts Options) error {
	_, err := writeCopy(w, s, base, opts, true)
	return err
}

// writeELF writes the copy as the ELF object that MarshalELF writes.
func (c *streamCopy) writeELF(w io.Writer, opts Options) error {
	sec := elfSection{name: ".BTF", typ: elf.SHT_PROGBITS, align: btfAlign, size: c.size(opts),
		fill: func(w io.Writer) error { return c.write(w, opts) }}
	return writeELF(w, byteOrder(opts), []elfSection{sec})
}

// streamCopy is a copy of Specs that WriteCopy writes as it goes: a
// Builder that holds the strings and the id maps, and records only while
// they are written.
type streamCopy struct {
	b       *Builder
	srcs    []*source // the Specs copied, s's chain root first, less the base's
	min     *minWalk  // WriteMinimal's closure of srcs; nil: every type
	typeLen int       // bytes of the records
	unread  int       // bytes of records read since the input's pages were last evicted
	pos     int       // bytes of the input's records read in this pass
	behind  int       // bytes of them evicted
	step    int       // bytes of records between two EvictTypes
	reads   int       // reads of the records made (records' calls)
}

// evictEvery is how many bytes of records a streamCopy reads between two
// calls of the input's Evict: a mapped input is resident a part at a time
// (the records being read, the strings they name), not whole. In between,
// the records read are evicted (EvictTypes) every sixteenth of the
// section, but not less than evictTypesMin: a fault maps 64 KB of the
// file (internal/mmap's File) and a record read is not read again in the
// pass, while evicting the strings that often would fault them back. Each
// eviction costs a system call and the TLB's flush: the sixteenth bounds
// their number (BENCH.md).
const (
	evictEvery    = 1 << 20
	evictTypesMin = 256 << 10
)

// read counts a record of in bytes, which encodes to n, as read from src, and evicts
// src's pages as evictEvery says.
func (c *streamCopy) read(src *source, in, n int) {
	c.pos += in
	if c.unread += n; c.unread >= evictEvery {
		btfmem.Evict(src.spec)
		c.unread, c.behind = 0, c.pos
	} else if c.step > 0 && c.pos-c.behind >= c.step {
		btfmem.EvictTypes(src.spec, c.behind, c.pos)
		c.behind = c.pos
	}
}

// start begins a pass over src's records.
func (c *streamCopy) start(src *source) {
	c.pos, c.behind = 0, 0
	c.step = max(evictTypesMin, len(src.spec.TypeSection())/16)
}

// flushSize is how many bytes of records a streamCopy buffers before it
// writes them.
const flushSize = 64 << 10

// errChanged is the error of a Spec whose types changed between the two
// reads of a streamCopy.
var errChanged = errors.New("builder: copy: the types changed while they were written")

// newStreamCopy reads the types that CopyAll(s) would copy into
// NewSplit(base) once, encoding them as it does, for their strings: the
// string section is then complete, in the order the records meet the
// strings, and the records' total size known. Each record is dropped once
// encoded. The types read are numbered as CopyAll numbers fresh sources:
// in id order, from the Builder's first id. A lazy Spec is checked whole
// first (btf.Spec.Check), as an eager open checks it.
func newStreamCopy(s, base *btf.Spec, opts Options) (*streamCopy, error) {
	c, err := prepareStreamCopy(s, base, opts)
	if err != nil {
		return nil, err
	}
	if err := c.collectStrings(base); err != nil {
		c.free()
		return nil, err
	}
	return c, nil
}

// prepareStreamCopy returns the streamCopy of newStreamCopy before its
// first read, without a string table. Its Builder numbers past
// wire.MaxTypeID with opts.ManyTypes.
func prepareStreamCopy(s, base *btf.Spec, opts Options) (*streamCopy, error) {
	if _, err := s.TypeByID(0); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil { // a lazy Spec's walk would stop short
		return nil, err
	}
	b, err := NewSplit(base)
	if err != nil {
		return nil, err
	}
	c := &streamCopy{b: b}
	b.many = opts.ManyTypes
	b.recent = new(recentNames)
	top := b.sourceOf(s)
	top.refresh()
	for k := len(top.chain) - 1; k >= 0; k-- {
		if o := top.chain[k]; !o.inBase {
			o.uncached = true
			c.srcs = append(c.srcs, o)
		}
	}
	return c, nil
}

// oneRead gives the Builder the string table of collectStrings, before
// any read: the input's own section in place where it may serve, which
// a name out of order turns to strings by reference (leaveInPlace).
// collectStrings replaces it.
func (c *streamCopy) oneRead(base *btf.Spec) {
	if base == nil && len(c.srcs) == 1 {
		if strs, start := c.srcs[0].spec.StringSection(); start == 0 && len(strs) > 0 {
			c.b.inPlace = newInPlace(strs)
			return
		}
	}
	if !c.refer(base) {
		c.reserve(base)
	}
}

// collectStrings makes the first read (collect) with the string table that
// serves the copy best: the input's own section in place, references to
// the input's strings, or a table of the strings sized once.
func (c *streamCopy) collectStrings(base *btf.Spec) error {
	if c.collectInPlace(base) {
		return nil
	}
	if !c.refer(base) {
		c.reserve(base)
	}
	return c.collect()
}

// collect makes the first read: it encodes every record that the copy
// writes for its strings, counts the records' bytes and, for a copy of
// every type (c.min nil), numbers the types.
func (c *streamCopy) collect() error {
	b := c.b
	if c.min == nil {
		return c.collectAll()
	}
	var marks []bitset
	if c.min == nil {
		marks = make([]bitset, len(c.srcs))
		for k, src := range c.srcs {
			marks[k] = newBitset(int(src.n))
		}
	}
	err := c.records(func(k int, id btf.TypeID, rec []byte, asFwd bool) error {
		src := c.srcs[k]
		n, err := b.collectRecord(rec, src, asFwd)
		if err != nil {
			return typeErr(src, id, err)
		}
		c.typeLen += n
		c.read(src, len(rec), n)
		if marks != nil {
			marks[k].set(uint32(id - src.first))
		}
		return nil
	})
	if err != nil {
		return err
	}
	n := 0
	for k, src := range c.srcs {
		btfmem.Evict(src.spec)
		if marks != nil {
			src.ids.numbered, src.ids.first = marks[k], b.firstID+btf.TypeID(n)
			var m uint32
			src.ids.prefix, m = marks[k].ranks()
			src.ids.every = m == src.n
			n += int(m)
		}
	}
	if uint64(b.firstID)+uint64(n) > b.lastID()+1 {
		return ErrTooManyTypes
	}
	b.n = 0
	return nil
}

// collectAll is collect for a copy of every type: the records are read
// in place, a buffer at a time, for their names (renameAll), and numbered
// as CopyAll numbers fresh sources.
func (c *streamCopy) collectAll() error {
	c.reads++
	for _, src := range c.srcs {
		types, err := c.section(src)
		if err != nil {
			return err
		}
		id := src.first
		for off := 0; off < len(types); {
			n, next, err := c.b.renameAll(types[off:chunkEnd(types, off)], src, id, false)
			if err != nil {
				return err
			}
			id, off = next, off+n
			c.read(src, n, n)
		}
		c.typeLen += len(types)
		btfmem.Evict(src.spec)
	}
	c.b.n = 0
	return c.numberAll()
}

// records calls fn on every record that the copy writes, in order, with
// its source's index in c.srcs, its type id, its record (nil if the Spec
// is closed) and whether it is written as a FWD: every type of c.srcs,
// read in place (btf.Spec.Records), or the closure of c.min.
func (c *streamCopy) records(fn func(k int, id btf.TypeID, rec []byte, asFwd bool) error) error {
	c.reads++
	if c.min != nil {
		// The closure's records are not met in the input's order: no
		// eviction behind a position (start).
		c.step = 0
		return c.min.each(func(k int, t btf.Type, asFwd bool) error {
			rec := t.Record()
			if rec == nil {
				return btf.ErrClosed
			}
			return fn(k, t.ID(), rec, asFwd)
		})
	}
	for k, src := range c.srcs {
		c.start(src)
		n := uint32(0)
		for id, rec := range src.spec.Records() {
			if err := fn(k, id, rec, false); err != nil {
				return err
			}
			n++
		}
		if err := c.readAll(src, n); err != nil {
			return err
		}
	}
	return nil
}

// typeErr returns err, of the copy of src's type id, naming the type as
// encode's errors do.
func typeErr(src *source, id btf.TypeID, err error) error {
	t, _ := src.spec.TypeByID(id)
	return pkgerr.Errorf("builder: copy %v: %w", t, err)
}

// streamKept is stream for a copy that keepsIDs: the input's records
// are copied a buffer at a time, whole, and only their names change
// (renameAll). It is WriteCopy's loop for a whole Spec, without a call
// or a Type per record and without encode's remapping of ids (BENCH.md;
// "btf copy" renames nothing: WriteAsIs).
func (c *streamCopy) streamKept(w io.Writer, buf []byte, swap bool) (int, error) {
	written := 0
	c.reads++
	for _, src := range c.srcs {
		types, err := c.section(src)
		if err != nil {
			return 0, err
		}
		id := src.first
		for off := 0; off < len(types); {
			start := len(buf)
			buf = append(buf, types[off:chunkEnd(types, off)]...)
			n, next, err := c.b.renameAll(buf[start:], src, id, true)
			if err != nil {
				return 0, err
			}
			buf, id, off = buf[:start+n], next, off+n
			if swap {
				wire.SwapWords(buf[start:])
			}
			written += n
			c.read(src, n, n)
			if _, err := w.Write(buf); err != nil {
				return 0, err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return written, err
}

// section returns src's own type section to read whole, and starts a
// pass over it (start); an error if its Spec is closed or has given
// records back.
func (c *streamCopy) section(src *source) ([]byte, error) {
	if src.n > 0 {
		if _, err := src.spec.TypeByID(src.first); err != nil {
			return nil, err
		}
	}
	c.start(src)
	return src.spec.TypeSection(), nil
}

// chunkEnd returns where the part of types that renameAll reads from
// off ends: flushSize bytes on, or the end of the record at off if it is
// longer, or the end of types.
func chunkEnd(types []byte, off int) int {
	end := off + flushSize
	if len(types)-off >= wire.TypeSize {
		end = max(end, off+int(kindSizes.Of(wire.Word(types, uint32(off)+wire.InfoAt))))
	}
	return min(len(types), end)
}

// kindSizes sizes the records of the kinds the Builder writes: a layout
// section may describe only other kinds (wire.ParseLayouts). wire's, made
// at its start-up, so that this package runs no code at start-up.
var kindSizes = &wire.DefaultSizes

// renameAll interns the names of the whole records at the start of recs,
// records of src from type id id on that a copy keeps whole (keepsIDs),
// in the order encode interns them and with its errors, and with patch
// writes the Builder's offsets over them. It returns the bytes of whole
// records read and the id of the next record. The open checked the
// records' sizes and kinds, and a kind the Builder cannot write (one of
// the layout section's) is an error.
func (b *Builder) renameAll(recs []byte, src *source, id btf.TypeID, patch bool) (int, btf.TypeID, error) {
	// Host-order words (the type section and the buffers are aligned).
	w, ok := wire.Words(recs)
	if !ok || len(w) < wire.TypeSize/4 || int(kindSizes.Of(w[wire.InfoAt/4])/4) > len(w) {
		// The open checked that the section is whole records.
		return 0, 0, typeErr(src, id, errChanged)
	}
	refs := b.refs
	p, end := 0, len(w)
	for end-p >= wire.TypeSize/4 {
		info := w[p+wire.InfoAt/4]
		next := p + int(kindSizes.Of(info)/4)
		if next > end {
			break
		}
		k := wire.InfoKind(info)
		if next == p || int(k) >= wire.NumKinds {
			return 0, 0, typeErr(src, id, fmt.Errorf("builder: cannot write kind %d", k))
		}
		sh := &wire.Shapes[k].W
		// The record's name, then each element's.
		at, e := p+wire.NameAt/4, p+sh.Fixed+sh.ElemName
		for {
			if off := w[at]; off != 0 {
				i, ok := uint32(0), false
				if refs != nil {
					i, ok = refs.place(off)
				}
				var v uint32
				var err error
				switch {
				case ok && refs.outs[i] != 0:
					v = refs.outs[i]
				case ok:
					v, err = refs.first(i, off)
				default:
					v, err = b.copyStr(src, off)
					refs = b.refs // set when a read leaves strings in place
				}
				if err != nil {
					return 0, 0, typeErr(src, id, err)
				}
				if patch {
					w[at] = v
				}
			}
			if sh.ElemName < 0 || e >= next {
				break
			}
			at, e = e, e+sh.Elem
		}
		b.n++
		p = next
		id++
	}
	return 4 * p, id, nil
}

// readAll returns the error of a read of src's records that stopped
// after n of them (btf.Spec.Records): nil if it read them all.
func (c *streamCopy) readAll(src *source, n uint32) error {
	if n == src.n {
		return nil
	}
	if _, err := src.spec.TypeByID(src.first + btf.TypeID(n)); err != nil {
		return err
	}
	return btf.ErrClosed
}

// keepsIDs reports whether the copy's ids are those of its input: a copy
// of every type whose sources are numbered from their own first ids (a
// standalone copy, or a split one on the input's own base). encode then
// leaves the records' type ids as they are. The open checked that every
// id a record refers to is a type of the input.
func (c *streamCopy) keepsIDs() bool {
	if c.min != nil {
		return false
	}
	for _, src := range c.srcs {
		if !src.ids.every || src.ids.first != src.first {
			return false
		}
	}
	return true
}

// collectInPlace makes the first read with the input's own string section
// as the output's (inPlace), where there is one input, without a base,
// and reports whether its strings are laid out so. If not, it undoes what
// the read counted: the copy then interns the strings (reserve, collect),
// which also returns any other error the read met.
func (c *streamCopy) collectInPlace(base *btf.Spec) bool {
	if base != nil || len(c.srcs) != 1 {
		return false
	}
	strs, start := c.srcs[0].spec.StringSection()
	if start != 0 || len(strs) == 0 {
		return false
	}
	c.b.inPlace = newInPlace(strs)
	// A name out of order turns the read to strings by reference
	// (leaveInPlace): it is then over, c.b.inPlace nil.
	if err := c.collect(); err == nil && (c.b.inPlace == nil || c.b.inPlace.unique()) {
		return true
	}
	if c.b.refs != nil {
		c.b.refs.free()
	}
	c.b.inPlace, c.b.refs, c.b.types, c.typeLen, c.unread = nil, nil, c.b.types[:0], 0, 0
	return false
}

// reserve gives the Builder a string table on base sized for every string
// of the copied Specs' own sections (what the copy may add), so that
// neither its index nor its data grows (a growth holds the old and the new
// table at once), and an index sized once can be dense. The table is in
// mappings (strtab.Options.Mapped), given back by free: on the heap, the
// strings and their index counted in the collector's pacing, which let
// the heap grow to twice them before it collected. The inputs are
// resident whole once read and checked: they are evicted first, to be
// resident from here on only in the part being read, and not beside the
// new tables.
func (c *streamCopy) reserve(base *btf.Spec) {
	c.b.strs = newStrTable(base, strtab.Options{Dense: true, Mapped: true})
	strs, size := 0, 0
	for _, src := range c.srcs {
		own, _ := src.spec.StringSection()
		strs += bytes.Count(own, []byte{0})
		size += len(own)
		btfmem.Evict(src.spec)
	}
	c.b.strs.widenFor(size)
	c.b.strs.grow(strs, size)
}

// refer gives the Builder a table of references to the input's strings
// (refStrings) where there is one input, without a base, and reports
// whether it did: the copy then holds no string bytes. The input is
// evicted first, as in reserve.
func (c *streamCopy) refer(base *btf.Spec) bool {
	if base != nil || len(c.srcs) != 1 {
		return false
	}
	src := c.srcs[0].spec
	if _, start := src.StringSection(); start != 0 {
		return false
	}
	btfmem.Evict(src)
	c.b.refs = newRefStrings(src)
	return c.b.refs != nil
}

// free gives back the string table's mappings; the copy must not be
// used afterwards.
func (c *streamCopy) free() {
	c.b.strs.free()
	if c.b.refs != nil {
		c.b.refs.free()
	}
}

// byteOrder returns the byte order that opts write, big or little endian.
func byteOrder(opts Options) binary.ByteOrder {
	if isLittle(opts.ByteOrder) {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// size returns the number of bytes that write writes.
func (c *streamCopy) size(opts Options) int {
	return rawSize(c.b.header(c.typeLen, opts))
}

// rawSize returns the size of raw BTF with header h and the layout
// section layout (nil for none).
func rawSize(h wire.Header, layout []byte) int {
	if layout != nil {
		return int(h.HdrLen+h.LayoutOff) + len(layout)
	}
	return int(h.HdrLen + h.StrOff + h.StrLen)
}

// write writes the copy as raw BTF in opts' byte order: the header, the
// records (read from the Spec a second time, encoded and written a buffer
// at a time), the strings and, with opts.Layout, the layout section.
func (c *streamCopy) write(w io.Writer, opts Options) error {
	b := c.b
	h, _ := b.header(c.typeLen, opts)
	order := byteOrder(opts).(binary.AppendByteOrder)
	buf := wire.AppendHeader(make([]byte, 0, flushSize+4096), h, order)
	written, err := c.stream(w, buf, opts)
	if err != nil {
		return err
	}
	if written != c.typeLen {
		return errChanged
	}
	return b.writeTail(w, h, order, opts.Layout)
}

// stream reads the records that the copy writes, encodes them in opts'
// byte order and writes them to w after what buf holds, a buffer at a
// time, and returns the bytes of records written.
func (c *streamCopy) stream(w io.Writer, buf []byte, opts Options) (int, error) {
	b := c.b
	swap := isLittle(opts.ByteOrder) != isLittle(nil)
	written := 0
	if c.keepsIDs() {
		return c.streamKept(w, buf, swap)
	}
	err := c.records(func(k int, id btf.TypeID, rec []byte, asFwd bool) error {
		src := c.srcs[k]
		b.types = buf
		if err := b.encodeRecord(rec, src, asFwd, true); err != nil {
			return typeErr(src, id, err)
		}
		out := b.types[len(buf):]
		if swap {
			wire.SwapWords(out)
		}
		written += len(out)
		in := len(out) // a record is copied whole, a FWD is not
		if asFwd {
			in = len(rec)
		}
		c.read(src, in, len(out))
		if buf = b.types; len(buf) >= flushSize {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return nil
	})
	b.types = nil
	if err != nil {
		return 0, err
	}
	_, err = w.Write(buf)
	return written, err
}
