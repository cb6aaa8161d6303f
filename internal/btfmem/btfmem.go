// Package btfmem lets kmeta's own readers of large BTF give back the
// memory of a btf.Spec's sections as they read them: btf/builder's
// WriteCopy, internal/dedup's Prepare and btf/distill, whose peak memory
// is set against C peers that hold a file's bytes on their heap. These
// are not part of btf's API: they change what a Spec's records cost, not
// what they are, and serve only a reader that walks a Spec in order once
// or twice and knows what it reads next. Package btf registers its
// functions (Register) when it is initialised, which is before any caller,
// which holds a *btf.Spec, can run.
//
// The functions take the Spec type as a type parameter so that this
// package, of the lowest rank, does not import btf (docs/layers.md).
package btfmem

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Funcs are what package btf registers for its Spec type S.
type Funcs[S any] struct {
	// Evict lets the system take back the pages of s's own type and
	// string sections when s reads them in place from a file's mapping:
	// they are read again from the page cache, with the same bytes, when
	// next touched. A Spec held in memory, and its bases, are left as
	// they are.
	Evict func(s S)
	// EvictTypes is Evict for bytes from..to of s's own type section
	// alone: a reader of the records in order calls it behind the record
	// it reads, more often than Evict, since the strings it reads in no
	// order would be faulted back at once.
	EvictTypes func(s S, from, to int)
	// EvictStrings is Evict for s's own string section alone: a reader
	// that has indexed the strings and compares their bytes only now and
	// then (dedup's Base) calls it once the index is built.
	EvictStrings func(s S)
	// TypesMapped reports whether s reads its own type section in place
	// from a file's mapping, whose pages EvictTypes gives back.
	TypesMapped func(s S) bool
	// Discard gives back for good the memory of the first n bytes of s's
	// type section when s reads them from anonymous memory of its own
	// (inflated, or a stream read whole): they read as zeros afterwards,
	// and lookups that would read them fail. It is for a reader that
	// closes s once it has read it in order (dedup's PrepareClose).
	Discard func(s S, n int)
	// TypesToFile gives back the memory of s's own type section when s
	// read it from a file's mapping in the other byte order and swapped
	// it there (its pages then are the process's own): they read as the
	// file again, in the file's order, and from then on are the file's
	// pages, which EvictTypes gives back; lookups that would read them
	// fail, as after Discard. It reports whether it did: a reader that
	// holds the records elsewhere, in host order, and copies the ones it
	// reads again out of the file swapping them (dedup's Base), calls it.
	TypesToFile func(s S) bool
	// LastReader marks s as one whose owner reads none of s's own
	// records once the next reader is done with them (DoneReading): the
	// CLI's base of a distill or of a deduplication, which it only
	// closes afterwards.
	LastReader func(s S)
	// DoneReading says that the caller reads none of s's own records
	// through s any more: if s was marked LastReader, its records go
	// back to the file (TypesToFile), as nobody reads them again;
	// otherwise nothing changes, since s's owner may. It reports
	// whether they went back. btf/distill calls it once it has copied
	// the base records it needs; dedup's Base once its in-order pass has
	// read them (it copies those it reads again out of the file).
	DoneReading func(s S) bool
	// RecordSizes returns the sizes s walks its own records by (those of
	// its layouts): a reader that walks s's type section itself (dedup's
	// Base) finds the records s finds.
	RecordSizes func(s S) *wire.Sizes
}

// funcs holds the Funcs[S] that Register was given.
var funcs any

// Register makes f the functions that Evict, EvictTypes and Discard call
// for values of type S; package btf calls it from its init.
func Register[S any](f Funcs[S]) { funcs = f }

// registered returns the Funcs registered for S.
func registered[S any]() Funcs[S] {
	f, ok := funcs.(Funcs[S])
	if !ok {
		panic(fmt.Sprintf("btfmem: no functions registered for %T", *new(S)))
	}
	return f
}

// evictWhileOpening is what RegisterOpening was given.
var evictWhileOpening any

// RegisterOpening makes f what EvictWhileOpening calls for options of type
// O (btf.Options); package btf calls it from its init.
func RegisterOpening[O any](f func(O) O) { evictWhileOpening = f }

// EvictWhileOpening returns opts (btf.Options) set so that opening a file
// that is mapped releases the pages of its records behind the check of
// every record, as it goes, instead of holding the whole type section
// resident when the open returns. It is for a reader that then reads the
// records again in order, releasing them as it goes (WriteCopy): the
// releases cost system calls, TLB flushes and refaults that a reader of
// the whole Spec at once (dump, find) would pay for nothing.
func EvictWhileOpening[O any](opts O) O {
	f, ok := evictWhileOpening.(func(O) O)
	if !ok {
		panic(fmt.Sprintf("btfmem: no options registered for %T", opts))
	}
	return f(opts)
}

// Evict calls the registered Funcs' Evict (see Funcs).
func Evict[S any](s S) { registered[S]().Evict(s) }

// EvictTypes calls the registered Funcs' EvictTypes (see Funcs).
func EvictTypes[S any](s S, from, to int) { registered[S]().EvictTypes(s, from, to) }

// EvictStrings calls the registered Funcs' EvictStrings (see Funcs).
func EvictStrings[S any](s S) { registered[S]().EvictStrings(s) }

// TypesMapped calls the registered Funcs' TypesMapped (see Funcs).
func TypesMapped[S any](s S) bool { return registered[S]().TypesMapped(s) }

// Discard calls the registered Funcs' Discard (see Funcs).
func Discard[S any](s S, n int) { registered[S]().Discard(s, n) }

// TypesToFile calls the registered Funcs' TypesToFile (see Funcs).
func TypesToFile[S any](s S) bool { return registered[S]().TypesToFile(s) }

// LastReader calls the registered Funcs' LastReader (see Funcs).
func LastReader[S any](s S) { registered[S]().LastReader(s) }

// DoneReading calls the registered Funcs' DoneReading (see Funcs).
func DoneReading[S any](s S) bool { return registered[S]().DoneReading(s) }

// RecordSizes calls the registered Funcs' RecordSizes.
func RecordSizes[S any](s S) *wire.Sizes { return registered[S]().RecordSizes(s) }
