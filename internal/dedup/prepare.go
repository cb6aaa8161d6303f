package dedup

import (
	"context"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/recenc"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Prepared is an input made ready to append by Merger.Prepare: its records
// copied and checked, each of its names hashed once and looked up in the
// base's strings, and the words that AddPrepared rewrites listed. It holds
// no reference to the Spec it was made from.
//
// A Prepared can be appended once, to the Merger that prepared it.
type Prepared struct {
	m *Merger
	recenc.Words
	wordInput
	nums strNums // Prepare's scratch
	mem  *prepMem
	// big is set for an input of more than keepWords words of records:
	// its buffers are given back once it is appended.
	big bool
}

// prepMem holds the mappings of a Prepared's buffers (see growMapped):
// the Merger gives them back when it deduplicates, so that the buffers,
// reused from input to input, leave no garbage on the heap.
type prepMem struct {
	w, ends, names, keys, hashes, strs, strEnds, local *mmap.Region
}

func (g *prepMem) free() {
	mmap.Free(&g.w, &g.ends, &g.names, &g.keys, &g.hashes, &g.strs, &g.strEnds, &g.local)
}

// prepPool holds the Prepared that AddPrepared is done with, for Prepare
// to reuse.
type prepPool struct {
	mu     sync.Mutex
	free   []*Prepared
	closed bool // by Dedup: nothing more is kept
}

func (q *prepPool) get() *Prepared {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n := len(q.free); n > 0 {
		p := q.free[n-1]
		q.free = q.free[:n-1]
		return p
	}
	p := &Prepared{mem: &prepMem{}}
	// One dropped unappended gives its mappings back too.
	runtime.AddCleanup(p, (*prepMem).free, p.mem)
	return p
}

// keepWords bounds the records of a Prepared whose buffers are kept for
// the next input: those of a larger input (a few, such as a GPU driver)
// are given back at once, so that the buffers kept do not all grow to
// the largest input each has met.
const keepWords = 1 << 15

func (q *prepPool) put(p *Prepared) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || p.big {
		p.mem.free()
		*p = Prepared{mem: p.mem}
		if q.closed {
			return
		}
	}
	q.free = append(q.free, p)
}

// close frees the buffers kept, and those put from now on.
func (q *prepPool) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	for _, p := range q.free {
		p.mem.free()
	}
	q.free = nil
}

const pending = ^uint32(0)

// evictEvery is how many bytes of records Prepare reads from a Spec
// between two calls of its Evict.
const evictEvery = 1 << 20

// Prepare does the part of AddSpec that does not depend on the inputs
// appended before s, so that it can run on other goroutines while earlier
// inputs are appended: it checks and copies the records of s and looks
// its names up in the base's strings. AddPrepared then appends the result.
// The output is the same as with AddSpec, byte for byte. s may be closed
// once Prepare returns.
//
// A large Spec mapped from a file has its pages evicted as Prepare reads
// them (internal/btfmem's Evict): the input is resident a part at a time beside
// the copy of its records, not whole. Other readers of s, then or later,
// read the pages again from the page cache, with the same contents; as
// for any use, s must not be closed while Prepare runs.
//
// Prepare stops, with an error wrapping the context's cause, once ctx is
// done: it looks at it every megabyte of records.
//
// Unlike the Merger's other methods, Prepare is safe for concurrent use,
// with itself and with them: it reads only what New set.
func (m *Merger) Prepare(ctx context.Context, s *btf.Spec) (*Prepared, error) {
	return m.prepare(ctx, s, false)
}

// PrepareClose is Prepare, then s.Close, whatever the result. Since
// nothing reads s afterwards, a large Spec that holds its data in memory
// of its own (what compressed input inflated to, a stream read whole)
// gives it back as Prepare reads it (internal/btfmem's Discard): the input and the
// copy of its records are not held whole at once, as for a mapped file.
func (m *Merger) PrepareClose(ctx context.Context, s *btf.Spec) (*Prepared, error) {
	defer s.Close()
	return m.prepare(ctx, s, true)
}

// pollEvery is how many bytes of records Prepare copies between two looks
// at its context: a few milliseconds of work.
const pollEvery = 1 << 20

func (m *Merger) prepare(ctx context.Context, s *btf.Spec, discard bool) (*Prepared, error) {
	if s.Base() != nil && (m.base == nil || s.Base() != m.base.spec) {
		return nil, fmt.Errorf("dedup: split input on a base other than the Merger's")
	}
	if _, err := s.TypeByID(0); err != nil {
		return nil, err
	}
	// A lazy Spec's references are checked here, as Parse checks them:
	// the passes index by them (issue 37).
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	sec, strStart := s.StringSection()
	// The buffers of inputs appended before are reused.
	p := m.pool.get()
	p.reset(m, uint32(s.FirstID()), len(s.TypeSection())/4, len(sec))
	// A large input's pages that opening the Spec read leave first, and
	// its records are copied and read a part at a time, what lies behind
	// evicted or discarded. (A small one's are not worth the system
	// calls.)
	if p.big {
		btfmem.Evict(s)
	}
	f := p.filler(uint32(s.FirstID()), s.TypeSection(), sec, strStart)
	// Without a layout section, the open refused the kinds this package
	// does not know and sized the records as checkRecord does: every
	// record passes it (a tenth of Prepare's reading, BENCH.md).
	f.sound = s.HeaderLen() <= wire.HeaderLen
	released := 0
	// step looks at ctx, and lets a large input's pages before keep go,
	// once read bytes of records were read since it last did.
	step := func(read, keep int) error {
		if ctx.Err() != nil {
			return fmt.Errorf("dedup: %w", context.Cause(ctx))
		}
		if p.big && read-released >= evictEvery {
			btfmem.Evict(s)
			if discard {
				btfmem.Discard(s, keep)
			}
			released = read
		}
		return nil
	}
	var err error
	if f.sound && f.inOrder {
		err = f.walk(int(s.LastID()-s.FirstID())+1, step)
	} else {
		err = f.addRecords(s, step)
	}
	if err != nil {
		p.m = nil
		m.pool.put(p)
		return nil, err
	}
	f.done()
	if p.big {
		btfmem.Evict(s)
		// The numbers of the strings serve only Prepare: a large
		// input's go before it is appended, where the Merger's
		// strings grow beside its own (BENCH.md).
		mmap.Free(&p.mem.local)
		p.nums = strNums{}
	}
	return p, nil
}

// A filler copies into a Prepared, as words, the records of an input
// given to add, checked, numbers their names (in the string section
// sec, which starts at strStart of the input's string space) and lists
// their references at or above own. This is the part of appending any input,
// a Spec's or a Builder's, that does not depend on the inputs appended
// before it. When the records are those of the type section types, in
// order, as they are, they are copied in large parts and rewritten in place.
type filler struct {
	p        *Prepared
	own      uint32
	types    []byte
	bulk     []uint32
	inOrder  bool
	sound    bool // every record passes checkRecord
	pos      int  // words of p.W holding records
	sec      []byte
	strStart uint32
}

// filler returns a filler of p for an input's type section types and
// string section sec.
func (p *Prepared) filler(own uint32, types, sec []byte, strStart uint32) filler {
	f := filler{p: p, own: own, types: types, sec: sec, strStart: strStart}
	p.own = own
	// nums numbers the strings of sec by their offsets, once met: most
	// names recur (member names), and are hashed once.
	p.nums.reset(sec, &p.mem.local)
	f.bulk, f.inOrder = wire.Words(types)
	return f
}

// add adds the record rec, of id id in the input's numbering.
func (f *filler) add(id btf.TypeID, rec []byte) error {
	p := f.p
	if !f.sound {
		if err := checkRecord(rec); err != nil {
			return fmt.Errorf("dedup: type [%d]: %w", id, err)
		}
	}
	end := f.pos + len(rec)/4
	if f.inOrder && (end > len(f.bulk) || &rec[0] != &f.types[4*f.pos]) {
		f.inOrder = false
		p.W = p.W[:f.pos]
	}
	switch {
	case !f.inOrder:
		p.W = appendRecordWords(p.W, rec)
	case end > len(p.W):
		// The section is copied evictEvery bytes at a time as its
		// records are read, so that a large input's pages behind them
		// can leave (Prepare).
		p.W = append(p.W, f.bulk[len(p.W):min(len(f.bulk), max(end, len(p.W)+evictEvery/4))]...)
	}
	p.prepareRecord(f.pos, end, f.own, f.sec, f.strStart)
	f.pos = end
	p.Ends = append(p.Ends, uint32(end))
	return nil
}

// addRecords adds the records of s, calling step every pollEvery bytes
// of records with the bytes read and those that may go (Prepare).
func (f *filler) addRecords(s *btf.Spec, step func(read, keep int) error) error {
	read, polled := 0, 0
	for id, rec := range s.Records() {
		if err := f.add(id, rec); err != nil {
			return err
		}
		// The records come in the order of the type section, so read
		// is the offset of the next one; the iterator reads rec's
		// header again to find it, so rec stays.
		if read += len(rec); read-polled >= pollEvery {
			polled = read
			if err := step(read, read-len(rec)); err != nil {
				return err
			}
		}
	}
	return nil
}

// walk adds the n records of the type section, which a Spec without a
// layout section sized as wire.DefaultSizes does, walking its words in
// place: what add does, without an iterator, a call and a check a record
// (a fifth of Prepare: BENCH.md, "Preparing and scanning"). It calls
// step every pollEvery bytes of records with the bytes read and those
// that may go (all: it reads none behind).
func (f *filler) walk(n int, step func(read, keep int) error) error {
	p, w := f.p, f.bulk
	polled := 0
	for range n {
		pos := f.pos
		size := 0
		if len(w)-pos >= wHead {
			size = int(wire.DefaultSizes.Of(w[pos+wInfo]) / 4)
		}
		end := pos + size
		if size == 0 || end > len(w) {
			// The open walked the same records: not met.
			return fmt.Errorf("dedup: type [%d]: record out of its section", uint32(len(p.Ends))+f.own)
		}
		if end > len(p.W) {
			// As in add, evictEvery bytes of the section at a time.
			p.W = append(p.W, w[len(p.W):min(len(w), max(end, len(p.W)+evictEvery/4))]...)
		}
		p.prepareRecord(pos, end, f.own, f.sec, f.strStart)
		p.Ends = append(p.Ends, uint32(end))
		f.pos = end
		if 4*(end-polled) >= pollEvery {
			polled = end
			if err := step(4*end, 4*end); err != nil {
				return err
			}
		}
	}
	if f.pos != len(w) {
		return fmt.Errorf("dedup: type section longer than its %d records", n)
	}
	return nil
}

// done ends the records.
func (f *filler) done() { f.p.W = f.p.W[:f.pos] }

// appendRecordWords appends the words of rec, a record checkRecord
// accepted.
func appendRecordWords(w []uint32, rec []byte) []uint32 {
	for i := 0; i < len(rec); i += 4 {
		w = append(w, wire.Word(rec, uint32(i)))
	}
	return w
}

// prepareRecord lists the references at or above own of the record in
// p.W[start:end] and the names to resolve, numbering the
// strings in the order of their first use (libbpf's order of interning:
// the name, then each element's).
func (p *Prepared) prepareRecord(start, end int, own uint32, sec []byte, strStart uint32) {
	r := record(p.W[start:end])
	sh := r.Shape()
	// The references are found by shape too (fixByShape); only the
	// largest is kept, for the check of Dedup (checkMaxRef).
	ref := func(i int) {
		if i >= 0 && r[i] >= own {
			p.MaxRef = max(p.MaxRef, r[i])
		}
	}
	// Every name in the input's own strings becomes a string's number;
	// a base string's offset (or the empty string's), which is its key
	// already, is kept with isKey set (keyOf), not numbered: a split
	// input that names only base strings numbers nothing (BENCH.md, "A
	// split input that repeats its base"). AddPrepared finds the names
	// by the records' shapes, so they are not listed (a list takes up
	// to half the records: enumerators are two words, one a name).
	name := func(i int) {
		v := r[i]
		if v < strStart || v == 0 {
			r[i] = v | isKey
			return
		}
		j, ok := p.nums.get(v)
		if !ok {
			j = p.addString(strtab.CString(sec[v-strStart:]))
			p.nums.put(v, j, &p.mem.local)
		}
		r[i] = j
	}
	ref(sh.Ref0)
	ref(sh.Ref1)
	name(wName)
	if sh.Elem == 0 || sh.ElemRef < 0 && sh.ElemName < 0 {
		return
	}
	for e := sh.Fixed; e < len(r); e += sh.Elem {
		if sh.ElemRef >= 0 {
			ref(e + sh.ElemRef)
		}
		if sh.ElemName >= 0 {
			name(e + sh.ElemName)
		}
	}
}

// reset empties p for an input of words words of records and a string
// section of strs bytes, with room for all it can hold: then no append
// leaves the mappings. Room never written costs no memory.
func (p *Prepared) reset(m *Merger, first uint32, words, strs int) {
	p.m, p.First, p.MaxRef, p.pending = m, first, 0, 0
	p.big = words > keepWords
	p.Later = p.Later[:0]
	g := p.mem
	// A record has at least wHead words, and no more names or
	// references than words; only the names in the input's own strings
	// are numbered, and there are no more of them than bytes. (Only the
	// suffixes of one string named at many offsets can outgrow this:
	// then append moves it to the heap.)
	nstr := min(words, strs) + 1
	p.W = growReused(p.W[:0], words, &g.w)
	p.Ends = growReused(p.Ends[:0], words/wHead, &g.ends)
	p.Names, p.Refs, p.byShape = p.Names[:0], p.Refs[:0], true
	p.keys = growReused(p.keys[:0], nstr, &g.keys)
	p.hashes = growReused(p.hashes[:0], nstr, &g.hashes)
	p.strEnds = growReused(p.strEnds[:0], nstr, &g.strEnds)
	p.strs = growReused(p.strs[:0], strs, &g.strs)
}

// isKey marks a name that prepareRecord kept as its key (a base
// string's offset, or the empty string's) among those it numbered:
// neither a number nor an offset reaches bit 31 (maxID).
const isKey = 1 << 31

// keyOf returns the key of a name that prepareRecord wrote: v without
// isKey, or the key of string number v.
func keyOf(keys []uint32, v uint32) uint32 {
	if v&isKey != 0 {
		return v &^ isKey
	}
	return keys[v]
}

// addString numbers the input's next string, and returns its number.
func (p *Prepared) addString(s []byte) uint32 {
	j := uint32(len(p.keys))
	key, h := uint32(0), uint64(0)
	if len(s) > 0 {
		h = maphash.Bytes(p.m.seed, s)
		key = pending
		if b := p.m.base; b != nil && b.strs.ready().filter.mayHold(h) {
			if off, ok := b.strs.index.FindHash(s, h); ok {
				key = off
			}
		}
	}
	if key == pending {
		p.strs = append(p.strs, s...)
		p.pending++
	}
	p.keys = append(p.keys, key)
	p.hashes = append(p.hashes, h)
	p.strEnds = append(p.strEnds, uint32(len(p.strs)))
	return j
}

// AddPrepared appends an input that Prepare made ready, as AddSpec would
// have appended it. On error nothing is appended. Either way p must not
// be used afterwards: its buffers serve the next Prepare.
func (m *Merger) AddPrepared(p *Prepared) error {
	if m.done {
		return ErrDone
	}
	if p.m != m {
		return fmt.Errorf("dedup: input prepared for another Merger, or appended already")
	}
	p.m = nil
	if err := m.appendWordInput(&p.Words, &p.wordInput, 0, &p.mem.w); err != nil {
		return err
	}
	m.d.specTypes += uint32(len(p.Ends))
	m.pool.put(p)
	return nil
}

// addOwn returns the key of s, which is not a base string, adding it to
// the own strings if needed; h is its hash (strtab.Set.Hash).
func (t *strSpace) addOwn(s []byte, h uint64) (uint32, error) {
	off, _ := t.Own.AddHash(s, h)
	// Strings of types that deduplication drops are counted here too;
	// the output's own limit is checked when it is written.
	if uint64(t.Start)+uint64(t.Own.Len()) > maxID {
		return 0, fmt.Errorf("dedup: more than %d bytes of strings appended", maxID)
	}
	return t.Start + off, nil
}
