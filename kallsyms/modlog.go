package kallsyms

import "encoding/binary"

// modLog holds the lines of the loadable modules while the input is read,
// in file order, in one shared sequence of pieces: a builder of its own
// for each module (its struct and the first pieces of its slices, about
// 1 KB) would make memory grow with the number of modules rather than with
// the input's size. Once the input is read, build replays each module's
// lines through one builder (replay), so that every module's table is the
// one a builder fed its lines directly makes.
//
// A line is an event: its address (8 bytes, native order), its type
// letter, the uvarint length of its name and the name (empty for a
// non-text symbol without Options.Data, which only stops a run of text).
// Events do not straddle pieces. A run is a sequence of consecutive
// events of one module; a module listed in several places has several.
type modLog struct {
	pieces [][]byte // each of capacity logPiece, from blobPieces
	runs   []logRun
	names  []string // by module id, in order of first appearance
	runsOf []int32  // runs' count by module id, until replay
}

// logRun is where a run starts: piece and offset in it, and its module.
type logRun struct {
	mod, piece, off uint32
}

// logPiece is the capacity of a piece: blobPieces' (a builder's blob).
const logPiece = 1 << 16

// add appends an event of module mod, starting a run when the last event
// was another module's.
func (l *modLog) add(mod uint32, addr uint64, typ byte, name []byte) {
	need := 8 + 1 + binary.MaxVarintLen16 + len(name)
	p := len(l.pieces) - 1
	if p < 0 || cap(l.pieces[p])-len(l.pieces[p]) < need {
		l.pieces = append(l.pieces, newLogPiece(len(l.pieces), need))
		p++
	}
	if n := len(l.runs); n == 0 || l.runs[n-1].mod != mod {
		l.runs = append(l.runs, logRun{mod: mod, piece: uint32(p), off: uint32(len(l.pieces[p]))})
		l.runsOf[mod]++
	}
	b := binary.NativeEndian.AppendUint64(l.pieces[p], addr)
	b = append(b, typ)
	b = binary.AppendUvarint(b, uint64(len(name)))
	l.pieces[p] = append(b, name...)
}

// newLogPiece returns piece k, with room for need bytes: the first pieces
// are small (a kernel's modules are a fraction of its lines, and often
// none), doubling to logPiece.
func newLogPiece(k, need int) []byte {
	if n := 2048 << min(k, 6); n < logPiece {
		return make([]byte, 0, max(n, need))
	}
	if p, ok := blobPieces.Get().(*[]byte); ok && cap(*p) == logPiece {
		return (*p)[:0]
	}
	return make([]byte, 0, logPiece)
}

// module returns the id of a new module called name.
func (l *modLog) module(name string) uint32 {
	l.names = append(l.names, name)
	l.runsOf = append(l.runsOf, 0)
	return uint32(len(l.names) - 1)
}

// replay calls each, for each module in order of first appearance, with
// the module's name and a function that yields its events in file order;
// then it gives the pieces back to the pool.
func (l *modLog) replay(each func(name string, events func(yield func(addr uint64, typ byte, name []byte) bool))) {
	order := l.groupRuns()
	for mod, name := range l.names {
		runs := order[l.runsOf[mod]:]
		if mod+1 < len(l.names) {
			runs = order[l.runsOf[mod]:l.runsOf[mod+1]]
		}
		each(name, func(yield func(uint64, byte, []byte) bool) {
			for _, r := range runs {
				if !l.events(r, yield) {
					return
				}
			}
		})
	}
	for _, p := range l.pieces {
		if cap(p) == logPiece {
			p = p[:0]
			blobPieces.Put(&p)
		}
	}
	*l = modLog{}
}

// groupRuns returns the runs' indexes grouped by module, each module's in
// file order, and turns runsOf into where each module's group starts.
// When every module is one run, in order of first appearance (the
// kernel's listing), the runs are already grouped.
func (l *modLog) groupRuns() []int32 {
	order := make([]int32, len(l.runs))
	start := int32(0)
	for mod, n := range l.runsOf {
		l.runsOf[mod] = start
		start += n
	}
	next := append([]int32(nil), l.runsOf...)
	for i, r := range l.runs {
		order[next[r.mod]] = int32(i)
		next[r.mod]++
	}
	return order
}

// events yields the events of run i in file order; it returns false when
// yield did.
func (l *modLog) events(i int32, yield func(uint64, byte, []byte) bool) bool {
	r := l.runs[i]
	p, off := int(r.piece), int(r.off)
	endP, endOff := len(l.pieces)-1, len(l.pieces[len(l.pieces)-1])
	if int(i)+1 < len(l.runs) {
		nr := l.runs[i+1]
		endP, endOff = int(nr.piece), int(nr.off)
	}
	for p < endP || p == endP && off < endOff {
		b := l.pieces[p]
		if off == len(b) {
			p, off = p+1, 0
			continue
		}
		addr, typ := binary.NativeEndian.Uint64(b[off:]), b[off+8]
		n, k := binary.Uvarint(b[off+9:])
		at := off + 9 + k
		off = at + int(n)
		if !yield(addr, typ, b[at:off]) {
			return false
		}
	}
	return true
}
