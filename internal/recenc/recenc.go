// Package recenc writes BTF type records from the arguments of the Add
// methods of btf/builder's Builder, as host-order 32-bit words: the one
// place that knows, for a producer of types, each kind's record layout,
// its checks and its errors. The Builder and the deduplication's Unit
// (internal/dedup) both write through an Encoder; they differ only in
// their Sink, which decides where the strings go and which id a record
// gets, and in the prefix of their errors.
//
// The element types are those of the Builder's API (builder.Member,
// builder.Param, builder.Enumerator), which this package, below the
// Builder, cannot name: Encoder takes them as type parameters whose
// underlying types are fixed here.
//
// # Concurrency
//
// An Encoder is used by one goroutine at a time.
//
// # Security
//
// Every argument is checked against what a record can hold (element
// counts, bitfield sizes and offsets, 32-bit enumerators) before it is
// written; names are checked by the Sink. Nothing is allocated beyond the
// words of the records written.
package recenc

import (
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
)

// Deferred is a reference whose id is known only when the records are
// appended (see Options.Deferred): the Encoder lists its positions in
// Words.Later instead of Words.Refs.
const Deferred = ^btf.TypeID(0)

// Words holds records as host-order words, with the positions of the
// words that their reader still rewrites.
type Words struct {
	// First is the first id of the records' own numbering: a reference
	// at or above it is listed in Refs, and MaxRef is the largest.
	First uint32
	W     []uint32
	Ends  []uint32 // each record's end in W
	// Names are the positions in W of the names that the Sink gave as
	// pending (numbers it resolves later), Refs those of references to
	// own types, Later those of Deferred references.
	Names, Refs, Later []uint32
	MaxRef             uint32
}

// Reset empties w for records numbered from first, keeping its buffers.
func (w *Words) Reset(first uint32) {
	w.First, w.MaxRef = first, 0
	w.W, w.Ends = w.W[:0], w.Ends[:0]
	w.Names, w.Refs, w.Later = w.Names[:0], w.Refs[:0], w.Later[:0]
}

// A Sink is where an Encoder's records go.
type Sink interface {
	// Str returns the word that names s, which is not empty, and
	// whether that word is pending: a number that the Sink's reader
	// replaces later, whose position Words.Names lists. The Sink
	// refuses a name with a NUL byte (NULError).
	Str(s string) (w uint32, pending bool, err error)
	// Begin returns the id of the record about to be written, or the
	// error, final, that keeps it from being written.
	Begin() (btf.TypeID, error)
	// End is called when the record begun last is complete in Words.
	End()
	// Fail returns err, which an Add method met, as the Sink's error
	// (its package's prefix), and may keep it.
	Fail(err error) error
}

// Options set an Encoder's conventions. The zero value interns a record's
// element names before its own name, as the Builder does, and treats
// Deferred as any other id.
type Options struct {
	// NameFirst interns a record's own name before its elements',
	// libbpf's order (a Unit's strings reach the output in it).
	NameFirst bool
	// Deferred lists references to Deferred in Words.Later.
	Deferred bool
}

// NULError is the error of a name that holds a NUL byte, which no string
// section can hold.
func NULError(s string) error { return fmt.Errorf("string %q holds a NUL byte", s) }

// pendingBit marks a pending name word in the Encoder's scratch: neither
// string offsets (wire.MaxNameOffset) nor a Sink's numbers reach it.
const pendingBit = 1 << 31

// Grow makes room in w for at least words more words of records, records
// more records, refs more references to own types and later more
// Deferred ones, so that writing that
// many does not copy the buffers from array to array as they grow. A
// producer that knows, or bounds, what it is about to write calls it
// first: on a unit of a hundred thousand types, growing by append
// allocated about five times the records' final size.
func (w *Words) Grow(words, records, refs, later int) {
	w.W = slices.Grow(w.W, words)
	w.Ends = slices.Grow(w.Ends, records)
	w.Refs = slices.Grow(w.Refs, refs)
	w.Later = slices.Grow(w.Later, later)
}
