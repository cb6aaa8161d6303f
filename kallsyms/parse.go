package kallsyms

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"sync"
)

const (
	// MaxNameLen is the longest symbol name the parser accepts. The kernel
	// allows 512 bytes (KSYM_NAME_LEN since 6.1); names are kept whole.
	MaxNameLen = 1024
	// maxModuleLen bounds a module name (the kernel's limit is 56 bytes).
	maxModuleLen = 256
	// MaxModules is the most modules (names in brackets, vmlinux apart)
	// the parser accepts: each costs a table of its own, and no kernel
	// loads as many (their text alone would fill x86-64's 1.5 GB module
	// area 256 times over at a page each).
	MaxModules = 1 << 16
	// maxLineLen bounds one input line.
	maxLineLen = 2 * (MaxNameLen + maxModuleLen)
	// nameTooLong says what MaxNameLen is to a user, who does not
	// know the constant's name; the two guards below keep the number
	// in it equal to MaxNameLen.
	nameTooLong = "symbol name longer than 1024 bytes"
	_           = uint(MaxNameLen - 1024)
	_           = uint(1024 - MaxNameLen)
	// Vmlinux is the module name of the kernel image's own symbols.
	Vmlinux = "vmlinux"
)

// parser turns kallsyms lines into vmlinux's builder and the modules'
// log (modLog). It is used by one goroutine.
type parser struct {
	data    bool
	line    int
	rest    []byte   // an incomplete line carried over from the last chunk
	vmlinux *builder // nil until a vmlinux line
	ids     map[string]uint32
	log     modLog
	lastID  uint32 // the module of the last module line, if any
	last    string // its name ("" before the first)
	nonzero bool
	lines   int
}

func newParser(data bool) *parser {
	return &parser{data: data, ids: make(map[string]uint32)}
}

// splitFast splits a line of the shape the kernel writes: 16 hex digits,
// a space, the type letter, a space, the name and optionally a tab and
// "[MODULE]". ok is false for any other line, which splitLine then splits
// or rejects with its reason.
func (p *parser) splitFast(l []byte) (addr uint64, typ byte, name, mod []byte, ok bool) {
	if len(l) < 20 || l[16] != ' ' || l[18] != ' ' || isSpace(l[17]) {
		return 0, 0, nil, nil, false
	}
	hi, okHi := hexHigh(binary.BigEndian.Uint64(l[:8]))
	lo, okLo := hex8(binary.BigEndian.Uint64(l[8:16]))
	addr = hi<<32 | lo
	typ, rest := l[17], l[19:]
	end := nameEnd(rest)
	if !okHi || !okLo || end == 0 || end > MaxNameLen {
		return 0, 0, nil, nil, false
	}
	name, rest = rest[:end], rest[end:]
	if len(rest) == 0 {
		return addr, typ, name, nil, true
	}
	if len(rest) < 4 || rest[0] != '\t' || rest[1] != '[' || rest[len(rest)-1] != ']' {
		return 0, 0, nil, nil, false
	}
	mod = rest[2 : len(rest)-1]
	if len(mod) > maxModuleLen || bytes.ContainsAny(mod, " \t[]") || string(mod) == Vmlinux {
		return 0, 0, nil, nil, false
	}
	return addr, typ, name, mod, true
}

// kernelLine parses the line at the start of c if it has the shape the
// kernel writes for its own symbols: 16 hex digits, a space, the type
// letter, a space and the name, then the newline, with no module and no
// carriage return. It finds the name's end and the line's in one pass. n is
// the line's length with its newline, or 0 for any other line, and for a
// line that c does not hold whole: parseLine then splits it, or rejects it
// with its reason.
func kernelLine(c []byte) (addr uint64, typ byte, name []byte, n int) {
	const nameAt = 19
	if len(c) < nameAt+8 || c[16] != ' ' || c[18] != ' ' || isSpace(c[17]) || c[17] == '\n' {
		return 0, 0, nil, 0
	}
	hi, okHi := hexHigh(binary.BigEndian.Uint64(c[:8]))
	lo, okLo := hex8(binary.BigEndian.Uint64(c[8:16]))
	if !okHi || !okLo {
		return 0, 0, nil, 0
	}
	for i := nameAt; i+8 <= len(c) && i <= nameAt+MaxNameLen; i += 8 {
		z := controls(binary.LittleEndian.Uint64(c[i:]))
		if z == 0 {
			continue
		}
		// The name ends at its first control byte or space, which must be
		// the newline; a tab (a module follows), a space or any other
		// byte below '!' is for parseLine to judge.
		j := i + bits.TrailingZeros64(z)/8
		if c[j] != '\n' || j == nameAt || j-nameAt > MaxNameLen || c[j-1] == '\r' {
			return 0, 0, nil, 0
		}
		return hi<<32 | lo, c[17], c[nameAt:j], j + 1
	}
	return 0, 0, nil, 0
}

// controls marks, with the top bit of its byte, the first byte below '!'
// (a space, tab, newline or other control byte) among the eight bytes of
// x, the lowest-addressed in its low bits, and possibly bytes after it; it
// is 0 when there is none. (A byte is below '!' exactly when subtracting
// '!' borrows from its top bit while the byte's own top bit is clear; a
// borrow reaches the next byte only from a byte that is marked.)
func controls(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return (x - '!'*ones) &^ x & highs
}

// hexHigh is hex8 for the high half of an address: on 64-bit kernels
// almost every address starts with "ffffffff", which it recognizes with
// one compare.
func hexHigh(x uint64) (v uint64, ok bool) {
	if x == 0x6666666666666666 { // "ffffffff"
		return 0xffffffff, true
	}
	return hex8(x)
}

// hex8 returns the value of the eight hex digits in x, the first in its
// top byte; ok is false unless all eight are hex digits. It works on all
// eight bytes at once: for a byte b below 0x80, b + (0x80-lo) has its top
// bit set exactly when b >= lo, and b + (0x7f-hi) exactly when b > hi.
func hex8(x uint64) (v uint64, ok bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	digit := (x + (0x80-'0')*ones) &^ (x + (0x7f-'9')*ones)
	l := x | 0x20*ones // 'A'-'F' to 'a'-'f'
	letter := (l + (0x80-'a')*ones) &^ (l + (0x7f-'f')*ones)
	ok = (digit|letter)&^x&highs == highs
	// Digits' values: the low nibble, plus 9 for letters (bit 6 set).
	d := x&(0x0f*ones) + (x>>6&ones)*9
	d = (d>>4 | d) & 0x00ff00ff00ff00ff
	d = (d>>8 | d) & 0x0000ffff0000ffff
	return (d>>16 | d) & 0xffffffff, ok
}

// nameEnd returns the index of the first space or tab in b, or len(b). It
// tests eight bytes at a time, the last eight overlapping those before.
func nameEnd(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if z := spaces(binary.LittleEndian.Uint64(b[i:])); z != 0 {
			return i + bits.TrailingZeros64(z)/8
		}
	}
	if i == len(b) {
		return i
	}
	if len(b) < 8 {
		for ; i < len(b) && !isSpace(b[i]); i++ {
		}
		return i
	}
	// The last eight bytes: drop those already tested (none is a space, so
	// none disturbs the bytes above it in spaces).
	skip := 8 - (len(b) - i)
	if z := spaces(binary.LittleEndian.Uint64(b[len(b)-8:])) >> (8 * skip); z != 0 {
		return i + bits.TrailingZeros64(z)/8
	}
	return len(b)
}

// spaces marks, with the top bit of its byte, the first space or tab
// among the eight bytes of x (the lowest-addressed byte in its low bits),
// and possibly bytes after it; it is 0 when there is none.
func spaces(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	s, t := x^0x2020202020202020, x^0x0909090909090909
	// the lowest set high bit marks the first zero byte of s or t
	return ((s-ones)&^s | (t-ones)&^t) & highs
}

// feed parses the complete lines of chunk and keeps the incomplete tail.
func (p *parser) feed(chunk []byte) error {
	if len(p.rest) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			return p.carry(chunk)
		}
		p.rest = append(p.rest, chunk[:i]...)
		if err := p.parseLine(p.rest); err != nil {
			return err
		}
		p.rest = p.rest[:0]
		chunk = chunk[i+1:]
	}
	for len(chunk) > 0 {
		if addr, typ, name, n := kernelLine(chunk); n > 0 {
			p.line++
			p.lines++
			if addr != 0 {
				p.nonzero = true
			}
			p.kernel(addr, typ, name)
			chunk = chunk[n:]
			continue
		}
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			return p.carry(chunk)
		}
		if err := p.parseLine(chunk[:i]); err != nil {
			return err
		}
		chunk = chunk[i+1:]
	}
	return nil
}

func (p *parser) carry(b []byte) error {
	if len(p.rest)+len(b) > maxLineLen {
		return &ParseError{Line: p.line + 1, Msg: "line too long"}
	}
	p.rest = append(p.rest, b...)
	return nil
}

// end parses a final line without a newline and returns what was read.
func (p *parser) end() (*parsed, error) {
	if len(p.rest) > 0 {
		if err := p.parseLine(p.rest); err != nil {
			return nil, err
		}
	}
	if p.lines > 0 && !p.nonzero {
		return nil, ErrRestricted
	}
	return &parsed{vmlinux: p.vmlinux, modules: p.log}, nil // (not the parser's map of names)
}

// parsed is what the parser read: vmlinux's builder (nil without its
// lines) and the modules' lines.
type parsed struct {
	vmlinux *builder
	modules modLog
}

// parseLine parses one line: "ADDR TYPE NAME" optionally followed by
// "\t[MODULE]".
func (p *parser) parseLine(l []byte) error {
	p.line++
	for len(l) > 0 && (isSpace(l[len(l)-1]) || l[len(l)-1] == '\r') {
		l = l[:len(l)-1]
	}
	if len(l) == 0 {
		return nil
	}
	addr, typ, name, mod, ok := p.splitFast(l)
	if !ok {
		var msg string
		if addr, typ, name, mod, msg = splitLine(l); msg != "" {
			return &ParseError{Line: p.line, Msg: msg}
		}
	}
	p.lines++
	if addr != 0 {
		p.nonzero = true
	}
	if len(mod) == 0 {
		p.kernel(addr, typ, name)
		return nil
	}
	id, err := p.module(mod)
	if err != nil {
		return err
	}
	if !p.data && !isText(typ) {
		name = nil // only stops a run of text (see builder.stop)
	}
	p.log.add(id, addr, typ, name)
	return nil
}

// kernel adds a line of vmlinux to its builder. (A builder with only
// stops makes no table: see build.)
func (p *parser) kernel(addr uint64, typ byte, name []byte) {
	if p.vmlinux == nil {
		p.vmlinux = newBuilder(Vmlinux, p.data)
	}
	if p.data || isText(typ) {
		p.vmlinux.add(addr, typ, name)
	} else {
		p.vmlinux.stop(addr)
	}
}

// module returns the id of module mod in the log, or an error for a
// module past MaxModules.
func (p *parser) module(mod []byte) (uint32, error) {
	if p.last == string(mod) && p.last != "" {
		return p.lastID, nil
	}
	id, ok := p.ids[string(mod)]
	if !ok {
		if len(p.log.names) >= MaxModules {
			return 0, &ParseError{Line: p.line, Msg: fmt.Sprintf("more than %d modules", MaxModules)}
		}
		name := string(mod)
		id = p.log.module(name)
		p.ids[name] = id
	}
	p.last, p.lastID = p.log.names[id], id
	return id, nil
}

// isText reports whether typ is a kallsyms type letter of a text symbol.
func isText(typ byte) bool {
	switch typ {
	case 't', 'T', 'w', 'W':
		return true
	}
	return false
}

// splitLine splits a trimmed, non-empty line. msg is non-empty for a
// malformed line and says what is wrong.
func splitLine(l []byte) (addr uint64, typ byte, name, mod []byte, msg string) {
	i := 0
	for ; i < len(l); i++ {
		d := hexDigit(l[i])
		if d < 0 {
			break
		}
		if i == 16 {
			return 0, 0, nil, nil, "address longer than 16 hex digits"
		}
		addr = addr<<4 | uint64(d)
	}
	if i == 0 {
		return 0, 0, nil, nil, "missing hex address"
	}
	rest := l[i:]
	if len(rest) < 3 || !isSpace(rest[0]) || isSpace(rest[1]) || !isSpace(rest[2]) {
		return 0, 0, nil, nil, "want \"ADDRESS TYPE NAME\""
	}
	typ, rest = rest[1], skipSpace(rest[2:])
	end := 0
	for end < len(rest) && !isSpace(rest[end]) {
		end++
	}
	name, rest = rest[:end], skipSpace(rest[end:])
	switch {
	case len(name) == 0:
		return 0, 0, nil, nil, "missing symbol name"
	case len(name) > MaxNameLen:
		return 0, 0, nil, nil, nameTooLong
	case len(rest) == 0:
		return addr, typ, name, nil, ""
	case len(rest) < 3 || rest[0] != '[' || rest[len(rest)-1] != ']':
		return 0, 0, nil, nil, "want \"[MODULE]\" after the symbol name"
	}
	mod = rest[1 : len(rest)-1]
	if len(mod) > maxModuleLen || bytes.ContainsAny(mod, " \t[]") || string(mod) == Vmlinux {
		return 0, 0, nil, nil, "bad module name"
	}
	return addr, typ, name, mod, ""
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func skipSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

// Load's reading goroutine hands the input to the parser in chunks of
// chunkSize bytes, through nbuf buffers. On the 2-CPU VM of
// BenchmarkKallsyms/Load every hand-over (the parser, idle, is woken on
// the other CPU) slows the kernel's read measurably, so chunks are big;
// but the last chunk is parsed after the kernel's last read, so they are
// not bigger. The size is the best of those measured (BENCH.md).
const (
	chunkSize = 256 << 10
	nbuf      = 2
)

// chunkPool keeps the chunk buffers across loads: a fresh buffer's pages
// fault in while the kernel writes to them.
var chunkPool = sync.Pool{New: func() any {
	b := make([]byte, chunkSize)
	return &b
}}

// readAll feeds r to a new parser. With async, it reads on a second
// goroutine so that the kernel's time to produce /proc/kallsyms overlaps
// with parsing; without, on this one.
func readAll(r io.Reader, data, async bool) (*parsed, error) {
	if !async {
		return readAllSync(r, data)
	}
	full := make(chan []byte, nbuf)
	free := make(chan []byte, nbuf)
	for range nbuf {
		free <- *chunkPool.Get().(*[]byte)
	}
	done := make(chan struct{})
	defer close(done)
	var rerr error
	go func() {
		defer close(full)
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-done:
				return
			}
			n, err := fill(r, buf)
			if n > 0 {
				select {
				case full <- buf[:n]:
				case <-done:
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					rerr = err
				}
				return
			}
		}
	}()
	p := newParser(data)
	for c := range full {
		if err := p.feed(c); err != nil {
			return nil, err
		}
		free <- c[:cap(c)]
	}
	// The reader has stopped: the buffers it handed back are idle.
	for len(free) > 0 {
		b := <-free
		chunkPool.Put(&b)
	}
	if rerr != nil {
		return nil, rerr
	}
	return p.end()
}

// readAllSync is readAll on the caller's goroutine alone.
func readAllSync(r io.Reader, data bool) (*parsed, error) {
	bufp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bufp)
	p := newParser(data)
	for {
		n, err := fill(r, *bufp)
		if n > 0 {
			if err := p.feed((*bufp)[:n]); err != nil {
				return nil, err
			}
		}
		if err == io.EOF {
			return p.end()
		}
		if err != nil {
			return nil, err
		}
	}
}

// fill reads from r until buf is nearly full, an error, or EOF. procfs
// returns at most a page per read.
func fill(r io.Reader, buf []byte) (int, error) {
	n, empty := 0, 0
	for n < len(buf)-4096 {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m > 0 {
			empty = 0
		} else if empty++; empty == 100 {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}
