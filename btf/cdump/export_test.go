package cdump

import (
	"context"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// WriteSkipFirst writes s as bpftool 7.5 does, leaving out, as it does, the
// type that sorts first (see the package documentation).
func WriteSkipFirst(w io.Writer, s *btf.Spec, opts Options) error {
	return write(context.Background(), w, s, opts, bpftoolSort{skipFirst: true})
}

// WriteSortAll writes s sorted as Write does, but sorting every type, as
// bpftool does, also those that print nothing.
func WriteSortAll(w io.Writer, s *btf.Spec, opts Options) error {
	return write(context.Background(), w, s, opts, bpftoolSort{sortAll: true})
}

// WriteChunked writes s sorted as Write does, but through the merge of
// sorted chunks of 2^bits ids, whatever its size; with skipFirst, leaving
// out the first type as WriteSkipFirst does.
func WriteChunked(w io.Writer, s *btf.Spec, opts Options, bits int, skipFirst bool) error {
	return write(context.Background(), w, s, opts, bpftoolSort{chunkBits: bits, skipFirst: skipFirst})
}
