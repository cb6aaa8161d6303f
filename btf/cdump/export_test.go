package cdump

import (
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// WriteSkipFirst writes s as bpftool 7.5 does, leaving out, as it does, the
// type that sorts first (see the package documentation).
func WriteSkipFirst(w io.Writer, s *btf.Spec, opts Options) error {
	return write(w, s, opts, bpftoolSort{skipFirst: true})
}

// WriteSortAll writes s sorted as Write does, but sorting every type, as
// bpftool does, also those that print nothing.
func WriteSortAll(w io.Writer, s *btf.Spec, opts Options) error {
	return write(w, s, opts, bpftoolSort{sortAll: true})
}
